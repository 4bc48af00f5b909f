import {
  type ApiContent,
  type ErrorShape,
  jsonContent,
  namedJsonSchemas,
  ROUTE_GROUPS,
  type Route,
  type RouteGroup,
  ref,
} from '@hub/core-index';

/**
 * The machine description: one OpenAPI 3.1 document generated from the route table (method, path,
 * summary, error shape, cache) and the zod schemas of core-index (components). Each route's answers, query and
 * body come from the route itself (`route.api`, written beside it in its package with `describeRoutes`); a route
 * without one is marked `x-undocumented` and a test fails on it.
 */

const str = { type: 'string' };
const bin = { type: 'string', format: 'binary' };

const ERROR_SCHEMA: Record<ErrorShape, string | undefined> = { hub: 'HubError', objects: 'ApiError', oci: 'OciError', text: undefined };

function errorContent(shape: ErrorShape): ApiContent {
  const name = ERROR_SCHEMA[shape];
  return name ? jsonContent(ref(name)) : { 'text/plain': { schema: str } };
}

/** `/a/:b/*c` → `/a/{b}/{c}`, with the parameter names. */
export function openapiPath(path: string): { path: string; params: string[]; rest?: string } {
  const params: string[] = [];
  let rest: string | undefined;
  const out = path.replace(/([:*])([A-Za-z_][A-Za-z0-9_]*)/g, (_m, kind: string, name: string) => {
    params.push(name);
    if (kind === '*') rest = name;
    return `{${name}}`;
  });
  return { path: out, params, ...(rest ? { rest } : {}) };
}

/** What each route group holds: the tags of /openapi.json (a route's tag is its `group`, set in its package's table). */
const GROUP_TAGS: Record<RouteGroup, string> = {
  discovery: 'The site, the descriptors, the agent brief, health, the archive and the transparency log',
  hf: 'The model-host dialect (HF_ENDPOINT): model info, listings, trees and resolve redirects',
  oci: 'The OCI registry (/v2/): models as OCI artifacts',
  buckets: 'Buckets: OCI repositories under /v2/hub/buckets/ and their section pages',
  objects: 'Objects by BLAKE3 address, and publishing them',
  spaces: 'Spaces: static browser apps served from objects',
  mcp: 'MCP over Streamable HTTP',
  account: 'Accounts: sign-in and tokens',
};

function security(route: Route<unknown>): Record<string, string[]>[] | undefined {
  if (route.rules === 'publish') return [{ publisherToken: [] }];
  if (route.rules === 'account') return [{ accountToken: [] }];
  if (route.rules === 'registry-write') return [{ registryToken: [] }, { registryBasic: [] }];
  return undefined;
}

/** Build the document from a route table. */
export function buildOpenApi(routes: readonly Route<any>[], version = '1.0.0'): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const opIds = new Set<string>();
  for (const route of routes) {
    const { path, params, rest } = openapiPath(route.path);
    // Each route carries its own description (route.api, written beside it in its package).
    const declared = route.api?.responses;
    const responses: Record<string, unknown> = {};
    for (const [status, spec] of Object.entries(
      declared ?? { '200': { description: 'Undocumented answer', content: { '*/*': { schema: {} } } } },
    )) {
      responses[status] = spec;
    }
    if (route.method === 'GET') responses['304'] ??= { description: 'Not modified: If-None-Match matched the ETag' };
    const errors = errorContent(route.errors);
    for (const status of ['4XX', '5XX']) {
      responses[status] ??= {
        description: `An error in the ${route.errors === 'text' ? 'text/plain' : (ERROR_SCHEMA[route.errors] ?? '')} shape`,
        content: errors,
      };
    }
    const cache =
      route.cache === undefined
        ? undefined
        : route.cache === 'immutable'
          ? 'immutable'
          : route.cache === 'no-store'
            ? 'no-store'
            : `max-age=${route.cache}`;
    let opId =
      `${route.method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}` ||
      'root';
    if (path === '/') opId = `${route.method.toLowerCase()}Root`;
    while (opIds.has(opId)) opId += 'Slash';
    opIds.add(opId);
    const operation: Record<string, unknown> = {
      operationId: opId,
      summary: route.summary ?? `${route.method} ${path}`,
      tags: [route.group],
      'x-rules': route.rules,
      'x-error-shape': route.errors,
      ...(cache ? { 'x-cache': cache } : {}),
      ...(declared ? {} : { 'x-undocumented': true }),
      parameters: [
        ...params.map((name) => ({
          name,
          in: 'path',
          required: true,
          description: name === rest ? 'the rest of the path; may contain /' : undefined,
          schema: str,
        })),
        ...(route.api?.query ?? []).map((q) => ({ ...q, in: 'query', required: false })),
      ].map((p) => JSON.parse(JSON.stringify(p))),
      responses,
    };
    const sec = security(route);
    if (sec) operation.security = sec;
    if (route.method === 'POST' || route.method === 'PUT') {
      operation.requestBody = route.api?.body ?? { required: false, content: { '*/*': { schema: bin } } };
    }
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Model hub',
      version,
      description:
        'A read-only hub for open model files. It holds names, addresses and directions, never weight bytes: downloads redirect to a live source and carry the SHA-256 from the index. Error bodies follow the route group: HubError {error} with X-Error-Code, ApiError {code, message} on object routes, OciError {errors} under /v2/, text/plain on unknown paths.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    tags: ROUTE_GROUPS.map((name) => ({ name, description: GROUP_TAGS[name] })),
    paths,
    components: {
      schemas: namedJsonSchemas(),
      securitySchemes: {
        publisherToken: { type: 'http', scheme: 'bearer', description: 'Publisher token: list, search and publish objects' },
        accountToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'Account token issued to the person signed in to the site',
        },
        registryToken: { type: 'http', scheme: 'bearer', description: 'Registry token (writes under /v2/; only the hub publishes)' },
        registryBasic: { type: 'http', scheme: 'basic', description: 'A container-registry login carrying the registry token as password' },
      },
    },
  };
}
