import { BodyTooLargeError, type CoreDeps, describeRoutes, errorResponse, type HubResponse, type Route, readBody } from '@hub/core-index';
import { MCP_API } from './api.js';
import { MCP_BODY_LIMIT, postOnly } from './envelope.js';
import type { McpOptions } from './server.js';

/**
 * The answering half (the MCP SDK with its schemas, Ajv and zod-to-json-schema, and the tools), imported on the first
 * POST /mcp, not when the hub starts: a start that serves no MCP request never loads it.
 */
const answering = () => import('./answer.js');

/**
 * The MCP server as a web-standard handler, for any Streamable HTTP host (a Worker, Deno, Bun,
 * Hono, or Node with a fetch adapter): `(req: Request) => Promise<Response>`. Mount it at the
 * path MCP clients are given; it answers POST (and 405 for anything else).
 */
export function createMcpHandler<D extends CoreDeps>(deps: D, options: McpOptions = {}): (req: Request) => Promise<Response> {
  return async (req: Request): Promise<Response> => {
    let res: HubResponse;
    try {
      const body =
        req.method.toUpperCase() === 'POST'
          ? await readBody({ method: req.method, url: req.url, headers: req.headers, body: req.body }, MCP_BODY_LIMIT)
          : null;
      res = await (await answering()).answerMcp(
        deps,
        { method: req.method, url: req.url, headers: req.headers, body, origin: deps.settings.baseUrl ?? new URL(req.url).origin },
        options,
      );
    } catch (e) {
      if (e instanceof BodyTooLargeError) {
        res = errorResponse(
          'hub',
          413,
          'PayloadTooLarge',
          `The request body is over ${MCP_BODY_LIMIT} bytes; one MCP message must be smaller.`,
        );
      } else {
        deps.log.error({ err: { message: (e as Error)?.message } }, 'mcp request failed');
        res = errorResponse('hub', 500, 'Internal', 'The MCP server failed to answer; it has been logged. Try again.');
      }
    }
    return new Response(res.body as BodyInit | null, { status: res.status, headers: res.headers });
  };
}

/**
 * The routes of `/mcp` for `createHub`: POST answers MCP; GET and DELETE answer 405 `{error}`
 * (stateless: no standalone event stream, no session to end).
 */
function mcpRouteTable<D extends CoreDeps>(options: McpOptions = {}): Route<D>[] {
  const notAllowed: Route<D>['handler'] = ({ req }) => postOnly(req.url);
  return [
    {
      method: 'POST',
      path: '/mcp',
      rules: 'read',
      group: 'mcp',
      errors: 'hub',
      cache: 'no-store',
      summary: 'MCP over Streamable HTTP (JSON-RPC 2.0, stateless, JSON replies)',
      handler: async ({ req, deps, origin }) => {
        const body = await readBody(req, MCP_BODY_LIMIT);
        return (await answering()).answerMcp(deps, { method: 'POST', url: req.url, headers: req.headers, body, origin }, options);
      },
    },
    {
      method: 'GET',
      path: '/mcp',
      rules: 'read',
      group: 'mcp',
      errors: 'hub',
      cache: 'no-store',
      summary: '405: MCP is POST only (no standalone event stream)',
      handler: notAllowed,
    },
    {
      method: 'DELETE',
      path: '/mcp',
      rules: 'read',
      group: 'mcp',
      errors: 'hub',
      cache: 'no-store',
      summary: '405: stateless, no session to delete',
      handler: notAllowed,
    },
  ];
}

/** {@link mcpRouteTable} with each route's API description (MCP_API) attached. */
export function mcpRoutes<D extends CoreDeps>(options: McpOptions = {}): Route<D>[] {
  return describeRoutes(mcpRouteTable<D>(options), MCP_API);
}
