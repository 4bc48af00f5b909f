import { type ErrorShape, namedJsonSchemas, type Route } from '@hub/core-index';
import { SPACE_RESPONSES } from '../spaces/openapi.js';

/**
 * The machine description: one OpenAPI 3.1 document generated from the route table (method, path,
 * summary, error shape, cache) and the zod schemas of core-index (components). Each route's success
 * answers are declared in {@link RESPONSES}; a route missing there is marked `x-undocumented` and a
 * test fails on it.
 */

type Content = Record<string, { schema: Record<string, unknown> }>;
interface ResponseSpec {
  description: string;
  content?: Content;
  headers?: Record<string, { description: string; schema: Record<string, unknown> }>;
}
type Responses = Record<string, ResponseSpec>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const arrayOf = (name: string) => ({ type: 'array', items: ref(name) });
const str = { type: 'string' };
const bin = { type: 'string', format: 'binary' };
const JSON_CT = 'application/json';
const j = (schema: Record<string, unknown>): Content => ({ [JSON_CT]: { schema } });
const ok = (description: string, content: Content): Responses => ({ '200': { description, content } });
const md = (description: string): Responses => ok(description, { 'text/markdown': { schema: str } });
const html = (description: string): Responses => ok(description, { 'text/html': { schema: str } });
const header = (description: string) => ({ description, schema: str });

const REDIRECT_HEADERS = {
  Location: header('the source URL'),
  'X-Hub-Source': header('health key of the chosen source'),
  'X-Repo-Commit': header('the indexed 40-hex commit'),
  'X-Linked-Etag': header('"<sha256>": the SHA-256 the bytes must have, from the index'),
  'X-Linked-Size': header('size in bytes'),
  'Repr-Digest': header('sha-256=:<base64>:'),
};

const resolveResponses: Responses = {
  '302': {
    description: 'Redirect to a live source that holds the file',
    headers: REDIRECT_HEADERS,
    content: { 'text/plain': { schema: str } },
  },
  '200': { description: 'SHA256SUMS: one `<sha256>  <path>` line per file, for sha256sum -c', content: { 'text/plain': { schema: str } } },
  '404': { description: 'RepoNotFound, RevisionNotFound or EntryNotFound (X-Error-Code)', content: j(ref('HubError')) },
  '503': { description: 'Sources hold the file but none is live; Retry-After is set', content: j(ref('HubError')) },
};

const sectionResponses: Responses = {
  '200': {
    description: 'By Accept (or ?format=json|md|html): SectionDescriptor, the Markdown section brief, or the section page',
    headers: { Vary: header('Accept'), Link: header('alternate (descriptor), describedby (brief), service-desc (/openapi.json)') },
    content: { [JSON_CT]: { schema: ref('SectionDescriptor') }, 'text/markdown': { schema: str }, 'text/html': { schema: str } },
  },
};

const MANIFEST_TYPES = ['application/vnd.docker.distribution.manifest.v2+json', 'application/vnd.oci.image.manifest.v1+json'];

const ociWrite: Responses = {
  '401': { description: 'No registry token: writes under /v2/ (bucket pushes) need one', content: j(ref('OciError')) },
  '405': { description: 'With the registry token: not a bucket path, or the edge (which accepts no push)', content: j(ref('OciError')) },
};

const accountOk = (name: string, status = '200'): Responses => ({ [status]: { description: name, content: j(ref(name)) } });

/** Success answers per route, keyed `METHOD path` exactly as in the route table. */
export const RESPONSES: Record<string, Responses> = {
  ...SPACE_RESPONSES,
  'GET /': ok('The website (text/html), the Descriptor (application/json) or the agent brief (text/markdown), by Accept', {
    [JSON_CT]: { schema: ref('Descriptor') },
    'text/markdown': { schema: str },
    'text/html': { schema: str },
  }),
  'GET /.well-known/model-hub.json': ok('The Descriptor', j(ref('Descriptor'))),
  'GET /agent.md': md('The one-screen agent brief; its last line is a canary'),
  'GET /api/hub/health': ok('HubHealth', j(ref('HubHealth'))),
  'GET /openapi.json': ok('This document', j({ type: 'object' })),
  'GET /.well-known/openapi.json': ok('This document (same bytes as /openapi.json)', j({ type: 'object' })),
  'GET /.well-known/agent-card.json': ok('AgentCard', j(ref('AgentCard'))),
  'GET /llms.txt': ok('The documentation index', { 'text/plain': { schema: str } }),
  'GET /robots.txt': ok('robots.txt', { 'text/plain': { schema: str } }),
  'GET /favicon.ico': ok('The favicon', { 'image/x-icon': { schema: bin } }),
  'GET /health': html('Source health for people'),
  'GET /docs/:page': {
    '200': {
      description: 'A docs page: `name.md` is Markdown, `name` its HTML twin; `api.md` is this document in Markdown',
      content: { 'text/markdown': { schema: str }, 'text/html': { schema: str } },
    },
    '404': { description: 'No such page (an HTML page)', content: { 'text/html': { schema: str } } },
  },
  'GET /models/:owner/:name': {
    ...html('The model page: files with sizes and SHA-256, sources and their health, commands'),
    '404': { description: 'Not in the index (an HTML page)', content: { 'text/html': { schema: str } } },
  },
  'GET /models/:owner': {
    ...html("One owner's models"),
    '404': { description: 'No model by that owner (an HTML page)', content: { 'text/html': { schema: str } } },
  },
  'GET /models/': {
    '200': {
      ...sectionResponses['200'],
      description:
        'The browse page (text/html) to browsers; the SectionDescriptor to Accept: application/json; the section brief (same bytes as /models) to others',
    } as ResponseSpec,
    '400': { description: 'An unknown sort (an HTML page)', content: { 'text/html': { schema: str } } },
  },
  'GET /api/v1/objects/:address': {
    '200': {
      description: 'The object bytes, with X-Object-Kind and the media type given at publish; BLAKE3 of the bytes equals the address',
      content: {
        [JSON_CT]: {
          schema: {
            oneOf: [
              ref('CatalogObject'),
              ref('ModelObject'),
              ref('SourceObject'),
              ref('SpaceObject'),
              ref('SpacesCatalog'),
              ref('BucketsCatalog'),
            ],
          },
        },
        '*/*': { schema: bin },
      },
    },
  },
  'GET /api/v1/objects/:address/meta': ok('ObjectMetadata', j(ref('ObjectMetadata'))),
  'GET /api/v1/objects': {
    '200': {
      description: 'A page of ObjectMetadata (publisher token): filter by kind and prefix; next is the cursor of the next page',
      content: j({
        type: 'object',
        required: ['items', 'next'],
        properties: { items: arrayOf('ObjectMetadata'), next: { type: ['string', 'null'] } },
      }),
      headers: { Link: header('next page') },
    },
  },
  'POST /api/v1/objects': {
    '201': { description: 'Stored: ObjectMetadata; Location is the object URL', content: j(ref('ObjectMetadata')) },
    '200': { description: 'Already stored: ObjectMetadata', content: j(ref('ObjectMetadata')) },
  },
  'GET /api/hub/archive': ok('Archive: the daily indexes, newest first, chained through prev', j(ref('Archive'))),
  'GET /api/hub/pins': ok('Pins', j(ref('Pins'))),
  'GET /api/hub/log/checkpoint': {
    '200': {
      description: "The log's checkpoint (C2SP tlog-checkpoint: origin, tree size, base64 root hash) as a C2SP signed note (Ed25519)",
      content: { 'text/plain; charset=utf-8': { schema: { type: 'string' } } },
    },
    '404': { description: 'NoCheckpoint: no signing key has signed the log yet', content: j(ref('HubError')) },
  },
  'GET /api/hub/log/tile/entries/*path': {
    '200': {
      description: 'An entry bundle (C2SP tlog-tiles): each archived day as a big-endian uint16 length and its model-hub.log-entry record',
      content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
    },
  },
  'GET /api/hub/log/tile/*path': {
    '200': {
      description: 'A hash tile (C2SP tlog-tiles): up to 256 consecutive 32-byte RFC 6962 Merkle tree hashes of one level',
      content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
    },
  },
  'GET /api/v1/capabilities': ok('CapabilityManifest', j(ref('CapabilityManifest'))),
  'GET /api/v1/health': ok('HealthResponse', j(ref('HealthResponse'))),
  'GET /api/models': {
    '200': {
      description: 'An array of ModelRow; Link rel="next" when more remain',
      content: j(arrayOf('ModelRow')),
      headers: { Link: header('next page') },
    },
  },
  'GET /api/models/:owner/:name': ok('ModelInfo', j(ref('ModelInfo'))),
  'GET /api/models/:owner/:name/revision/*rev': ok('ModelInfo', j(ref('ModelInfo'))),
  'GET /api/models/:owner/:name/tree/:rev': ok('TreeEntry array', j(arrayOf('TreeEntry'))),
  'GET /api/models/:owner/:name/tree/:rev/*path': ok('TreeEntry array', j(arrayOf('TreeEntry'))),
  'GET /api/models/:owner/:name/refs': ok('Refs', j(ref('Refs'))),
  'POST /api/models/:owner/:name/paths-info/*rev': ok('TreeEntry for each named path that exists', j(arrayOf('TreeEntry'))),
  'GET /api/models/:owner': { '404': { description: 'RepoNotFound: ids are owner/name', content: j(ref('HubError')) } },
  'GET /:owner/:name': {
    '302': { description: 'The model page, /models/{owner}/{name} (Location)', headers: { Location: header('the model page') } },
    '404': { description: 'Not in the index: the site page to a browser, text otherwise', content: { 'text/plain': { schema: str } } },
  },
  'GET /:owner/:name/blob/:rev/*path': {
    '302': {
      description: 'The file, /{owner}/{name}/resolve/{rev}/{path} (Location)',
      headers: { Location: header('the download route') },
    },
    '404': { description: 'Not in the index', content: { 'text/plain': { schema: str } } },
  },
  'GET /:owner/:name/resolve/:rev/*path': resolveResponses,
  'GET /:owner/:name/raw/:rev/*path': resolveResponses,
  'GET /via/:token/:owner/:name/resolve/:rev/*path': resolveResponses,
  'GET /via/:token/:owner/:name/raw/:rev/*path': resolveResponses,
  'GET /v2/': ok('API version check: an empty object', j({ type: 'object' })),
  'GET /v2': ok('API version check: an empty object', j({ type: 'object' })),
  'GET /v2/_catalog': ok('OciCatalog', j(ref('OciCatalog'))),
  'GET /v2/:owner/:name/tags/list': ok('OciTagList', j(ref('OciTagList'))),
  'GET /v2/:owner/:name/manifests/:reference': {
    '200': {
      description: 'The manifest; Content-Type is its mediaType',
      content: Object.fromEntries(MANIFEST_TYPES.map((t) => [t, { schema: ref('OciManifest') }])),
    },
  },
  'GET /v2/:owner/:name/blobs/:digest': {
    '307': { description: 'A weight layer: redirect to a live source', headers: { Location: header('the source URL') } },
    '200': { description: 'A hub-made blob (config, template, params, licence)', content: { '*/*': { schema: bin } } },
    '206': { description: 'A range of a hub-made blob', content: { '*/*': { schema: bin } } },
  },
  'GET /v2/hub/buckets/:bucket/tags/list': ok('The tags of a bucket (OciTagList)', j(ref('OciTagList'))),
  'GET /v2/hub/buckets/:bucket/manifests/:reference': {
    '200': {
      description: 'The manifest or index a tag or digest names, as it was pushed; Content-Type is its media type',
      headers: { 'Docker-Content-Digest': header('sha256 of the bytes') },
      content: Object.fromEntries(
        [...MANIFEST_TYPES, 'application/vnd.oci.image.index.v1+json', 'application/vnd.docker.distribution.manifest.list.v2+json'].map(
          (t) => [t, { schema: { type: 'object' } }],
        ),
      ),
    },
  },
  'GET /v2/hub/buckets/:bucket/blobs/:digest': {
    '200': { description: 'The blob bytes (the hub holds them); their sha256 is the digest', content: { '*/*': { schema: bin } } },
    '206': { description: 'A range of the blob', content: { '*/*': { schema: bin } } },
  },
  'POST /v2/hub/buckets/:bucket/blobs/uploads/': {
    '201': {
      description: 'Uploaded whole (?digest=) or mounted (?mount=&from=)',
      headers: { Location: header('the blob'), 'Docker-Content-Digest': header('its digest') },
    },
    '202': {
      description: 'An upload session started',
      headers: { Location: header('the session'), 'Docker-Upload-UUID': header('its id'), Range: header('0-0') },
    },
  },
  'GET /v2/hub/buckets/:bucket/blobs/uploads/:uuid': {
    '204': { description: 'Where the upload stands', headers: { Range: header('0-<last byte received>') } },
  },
  'PATCH /v2/hub/buckets/:bucket/blobs/uploads/:uuid': {
    '202': { description: 'The chunk was appended', headers: { Location: header('the session'), Range: header('0-<last byte received>') } },
  },
  'PUT /v2/hub/buckets/:bucket/blobs/uploads/:uuid': {
    '201': {
      description: 'Closed: the bytes hashed to ?digest= and are stored',
      headers: { Location: header('the blob'), 'Docker-Content-Digest': header('its digest') },
    },
  },
  'DELETE /v2/hub/buckets/:bucket/blobs/uploads/:uuid': { '204': { description: 'The upload was cancelled' } },
  'PUT /v2/hub/buckets/:bucket/manifests/:reference': {
    '201': {
      description: 'The manifest or index is stored (and tagged)',
      headers: { Location: header('the manifest by digest'), 'Docker-Content-Digest': header('its digest') },
    },
  },
  'GET /v2/*rest': { '404': { description: 'No registry route: repositories are {owner}/{name}', content: j(ref('OciError')) } },
  'GET /api/account/health': accountOk('AccountHealth'),
  'GET /api/account/me': accountOk('Account'),
  'GET /api/account/saved': accountOk('SavedList'),
  'PUT /api/account/saved': accountOk('SavedList'),
  'POST /api/account/saved/:owner/:name': accountOk('SavedList'),
  'DELETE /api/account/saved/:owner/:name': accountOk('SavedList'),
  'POST /api/account/request': {
    '201': {
      description: 'Queued for the next index run',
      content: j({ type: 'object', properties: { model: str, queued: { type: 'boolean' } } }),
    },
  },
  'POST /api/account/publish-interest': ok('Recorded', j({ type: 'object', properties: { did: str } })),
  'PUT /api/account/wallet': accountOk('Account'),
  'POST /mcp': {
    '200': { description: 'A JSON-RPC response (a failing tool is a result with isError)', content: j(ref('JsonRpcResponse')) },
    '202': { description: 'A notification was accepted' },
    '400': { description: 'Unparseable JSON or an invalid envelope (JSON-RPC error)', content: j(ref('JsonRpcResponse')) },
  },
  'GET /mcp': { '405': { description: 'MCP is POST only', content: j(ref('HubError')) } },
  'DELETE /mcp': { '405': { description: 'Stateless: no session to delete', content: j(ref('HubError')) } },
};

const SECTION_PATHS = ['/models', '/registry', '/spaces', '/buckets', '/docs'];
for (const p of SECTION_PATHS) {
  RESPONSES[`GET ${p}`] = sectionResponses;
  RESPONSES[`GET ${p}/`] ??= sectionResponses;
}

const ERROR_SCHEMA: Record<ErrorShape, string | undefined> = { hub: 'HubError', objects: 'ApiError', oci: 'OciError', text: undefined };

function errorContent(shape: ErrorShape): Content {
  const name = ERROR_SCHEMA[shape];
  return name ? j(ref(name)) : { 'text/plain': { schema: str } };
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

const QUERY: Record<string, { name: string; description: string; schema: Record<string, unknown> }[]> = {
  'GET /api/models': [
    { name: 'limit', description: '1 to 500, default 50', schema: { type: 'integer', minimum: 1, maximum: 500 } },
    { name: 'search', description: 'words that must all appear in the id', schema: str },
    { name: 'author', description: 'owner', schema: str },
    { name: 'filter', description: 'tags (repeat or comma-separate)', schema: str },
    { name: 'pipeline_tag', description: 'task', schema: str },
    { name: 'library', description: 'library', schema: str },
    { name: 'sort', description: 'trendingScore (default), downloads, likes, createdAt, lastModified, id', schema: str },
    { name: 'direction', description: '-1 or 1', schema: str },
    { name: 'cursor', description: 'from a Link rel="next"', schema: str },
  ],
  'GET /v2/_catalog': [
    { name: 'n', description: 'page size', schema: { type: 'integer', minimum: 0 } },
    { name: 'last', description: 'entries after this one', schema: str },
  ],
  'GET /models/': [
    { name: 'sort', description: 'trending (default), downloads or likes', schema: str },
    { name: 'q', description: 'filter text', schema: str },
    { name: 'task', description: 'filter by task', schema: str },
    { name: 'library', description: 'filter by library', schema: str },
  ],
};
for (const p of SECTION_PATHS) {
  QUERY[`GET ${p}`] = [
    { name: 'format', description: 'json, md or html: overrides Accept', schema: { type: 'string', enum: ['json', 'md', 'html'] } },
  ];
  if (p !== '/models') QUERY[`GET ${p}/`] = QUERY[`GET ${p}`] as never;
  else QUERY['GET /models/']?.push(...(QUERY['GET /models'] ?? []));
}

const TAGS: [RegExp, string][] = [
  [/^\/v2(\/|$)/, 'OCI registry'],
  [/^\/api\/v1\//, 'Objects'],
  [/^\/api\/account\//, 'Account'],
  [/^\/mcp$/, 'MCP'],
  [/^\/(api\/models|:owner|via)/, 'Model-host dialect'],
  [/^\/(models|registry|spaces|buckets|docs)(\/|$)/, 'Sections and site'],
];

export function tagOf(path: string): string {
  for (const [re, tag] of TAGS) if (re.test(path)) return tag;
  return 'Discovery';
}

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
    const key = `${route.method} ${route.path}`;
    // Every registry write answers the same way (401 without the registry token, 405 with it).
    const declared = RESPONSES[key] ?? (route.rules === 'registry-write' ? ociWrite : undefined);
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
      tags: [tagOf(route.path)],
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
        ...(QUERY[key] ?? []).map((q) => ({ ...q, in: 'query', required: false })),
      ].map((p) => JSON.parse(JSON.stringify(p))),
      responses,
    };
    const sec = security(route);
    if (sec) operation.security = sec;
    if (route.method === 'POST' || route.method === 'PUT') {
      operation.requestBody = requestBody(key);
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
    tags: ['Discovery', 'Sections and site', 'Model-host dialect', 'OCI registry', 'Objects', 'MCP', 'Account'].map((name) => ({ name })),
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

function requestBody(key: string): Record<string, unknown> {
  if (key.startsWith('POST /api/models/')) {
    const schema = { type: 'object', properties: { paths: { anyOf: [str, { type: 'array', items: str }] }, expand: { type: 'boolean' } } };
    return { required: true, content: { [JSON_CT]: { schema }, 'application/x-www-form-urlencoded': { schema } } };
  }
  if (key === 'POST /api/v1/objects')
    return {
      required: true,
      content: { '*/*': { schema: bin } },
      description: 'The raw bytes; Content-Type is the media type, X-Object-Kind the kind',
    };
  if (key === 'POST /mcp') return { required: true, content: j(ref('JsonRpcRequest')) };
  if (key.startsWith('PUT /api/account/saved')) return { required: true, content: j(ref('SavedList')) };
  if (key === 'POST /api/account/request')
    return { required: true, content: j({ type: 'object', required: ['model'], properties: { model: str } }) };
  if (key === 'PUT /api/account/wallet')
    return { required: true, content: j({ type: 'object', required: ['wallet'], properties: { wallet: { type: ['string', 'null'] } } }) };
  return { required: false, content: { '*/*': { schema: bin } } };
}
