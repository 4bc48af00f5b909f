/**
 * What the /mcp routes need without the MCP SDK: the body limit, the input of one message and the 405. The SDK, its
 * schemas and the tools (answer.ts) load on the first POST (docs/decisions/scale-and-speed.md, "A start loads what it
 * serves").
 */
import { errorResponse, type HeaderBag, type HubResponse } from '@hub/core-index';

/** The most one POST /mcp body may hold. */
export const MCP_BODY_LIMIT = 4 * 1024 * 1024;

/** One POST (or other method) to /mcp, as the route and the web factory both see it. */
export interface McpInput {
  method: string;
  /** absolute URL */
  url: string;
  headers: HeaderBag;
  /** the body bytes (already read within {@link MCP_BODY_LIMIT}) */
  body: Uint8Array | null;
  /** `scheme://host` this hub is reached at, for absolute URLs in answers */
  origin: string;
}

/** 405 `{error}` for GET, DELETE and anything but POST: stateless, so no event stream and no session. */
export function postOnly(url: string): HubResponse {
  let path = '/mcp';
  try {
    path = new URL(url).pathname;
  } catch {
    /* keep /mcp */
  }
  return errorResponse(
    'hub',
    405,
    'MethodNotAllowed',
    `MCP is POST only here: send each JSON-RPC message with POST ${path}. This server is stateless, so it opens no event stream and has no session to delete.`,
    { allow: 'POST' },
  );
}
