/** One MCP message answered: the hub's own checks, then the SDK's transport and a fresh `McpServer` (loaded on the first POST /mcp). */
import { type CoreDeps, errorResponse, type HubResponse, json } from '@hub/core-index';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { type McpInput, postOnly } from './envelope.js';
import { buildServer, type McpOptions } from './server.js';
import { argumentError, TOOLS, TOOLS_BY_NAME, type ToolContext } from './tools.js';

/** JSON-RPC 2.0 error codes. */
export const JSONRPC = { parseError: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602 } as const;

/** The request methods this server answers, with the SDK schema that checks their params. */
const METHODS: Record<
  string,
  { safeParse(v: unknown): { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } } }
> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
  'resources/list': ListResourcesRequestSchema,
  'resources/templates/list': ListResourceTemplatesRequestSchema,
  'resources/read': ReadResourceRequestSchema,
  'prompts/list': ListPromptsRequestSchema,
  'prompts/get': GetPromptRequestSchema,
};

function rpcError(status: number, id: string | number | null, code: number, message: string): HubResponse {
  return json(status, { jsonrpc: '2.0', id, error: { code, message } }, { 'cache-control': 'no-store' });
}

function rpcResult(id: string | number, result: unknown): HubResponse {
  return json(200, { jsonrpc: '2.0', id, result }, { 'cache-control': 'no-store' });
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * DNS-rebinding protection (MCP transport spec): a browser's `Origin` must name this host or a
 * loopback host. Requests without `Origin` (every non-browser client) pass.
 */
export function originAllowed(originHeader: string | null, requestUrl: string, baseUrl?: string): boolean {
  if (originHeader === null || originHeader === '') return true;
  let origin: URL;
  try {
    origin = new URL(originHeader);
  } catch {
    return false; // includes the opaque `null` origin of sandboxed pages
  }
  if (LOCAL_HOSTS.has(origin.hostname)) return true;
  const hosts = new Set<string>();
  try {
    hosts.add(new URL(requestUrl).host.toLowerCase());
  } catch {
    /* no host to compare */
  }
  if (baseUrl) {
    try {
      hosts.add(new URL(baseUrl).host.toLowerCase());
    } catch {
      /* ignore a bad base URL */
    }
  }
  return hosts.has(origin.host.toLowerCase());
}

function mediaType(header: string | null): string {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function acceptsJson(accept: string | null): boolean {
  if (accept === null || accept.trim() === '') return true;
  return accept
    .split(',')
    .map((p) => mediaType(p))
    .some((t) => t === 'application/json' || t === 'application/*' || t === '*/*' || t === 'text/event-stream');
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function issuesText(issues: Array<{ path: PropertyKey[]; message: string }>): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : 'params'}: ${i.message}`)
    .join('; ');
}

/**
 * Answer one MCP message over Streamable HTTP, statelessly, with JSON replies. The checks the SDK
 * does not make in the shape this hub wants (error codes, messages that name the fix) run first;
 * everything that passes goes to the SDK's web-standard transport and a fresh `McpServer`.
 */
export async function answerMcp<D extends CoreDeps>(deps: D, input: McpInput, options: McpOptions = {}): Promise<HubResponse> {
  if (input.method.toUpperCase() !== 'POST') return postOnly(input.url);
  if (!originAllowed(input.headers.get('origin'), input.url, deps.settings.baseUrl)) {
    return errorResponse(
      'hub',
      403,
      'ForbiddenOrigin',
      `The Origin ${input.headers.get('origin')} is not this hub's host, so the request is refused (DNS-rebinding protection). Call /mcp from a page on this host, from localhost, or from a client that sends no Origin.`,
    );
  }
  if (mediaType(input.headers.get('content-type')) !== 'application/json') {
    return errorResponse(
      'hub',
      415,
      'UnsupportedMediaType',
      'POST /mcp takes one JSON-RPC message: send it with Content-Type: application/json.',
    );
  }
  if (!acceptsJson(input.headers.get('accept'))) {
    return errorResponse(
      'hub',
      406,
      'NotAcceptable',
      'This server replies with application/json: send Accept: application/json, text/event-stream.',
    );
  }

  let message: unknown;
  try {
    message = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(input.body ?? new Uint8Array()));
  } catch {
    return rpcError(
      400,
      null,
      JSONRPC.parseError,
      'Parse error: the body is not valid JSON. Send one JSON-RPC 2.0 object, e.g. {"jsonrpc":"2.0","id":1,"method":"ping"}.',
    );
  }
  if (Array.isArray(message)) {
    return rpcError(
      400,
      null,
      JSONRPC.invalidRequest,
      'Invalid request: JSON-RPC batches are not supported (MCP removed them in 2025-06-18). Send one message per POST.',
    );
  }
  if (!isPlainObject(message)) {
    return rpcError(
      400,
      null,
      JSONRPC.invalidRequest,
      'Invalid request: a JSON-RPC message is an object with "jsonrpc": "2.0", "method" and, for a request, "id".',
    );
  }
  const rawId = message.id;
  const id = typeof rawId === 'string' || (typeof rawId === 'number' && Number.isFinite(rawId)) ? rawId : null;
  if (message.jsonrpc !== '2.0') {
    return rpcError(400, id, JSONRPC.invalidRequest, 'Invalid request: "jsonrpc" must be the string "2.0".');
  }
  if ('id' in message && id === null && 'method' in message) {
    return rpcError(
      400,
      null,
      JSONRPC.invalidRequest,
      'Invalid request: "id" must be a string or a number (leave it out for a notification).',
    );
  }
  if ('method' in message && typeof message.method !== 'string') {
    return rpcError(400, id, JSONRPC.invalidRequest, 'Invalid request: "method" must be a string such as "tools/list".');
  }
  if (!('method' in message) && !('result' in message) && !('error' in message)) {
    return rpcError(
      400,
      id,
      JSONRPC.invalidRequest,
      'Invalid request: a message needs "method" (a request or notification) or "result"/"error" (a response).',
    );
  }
  if ('params' in message && message.params !== undefined && !isPlainObject(message.params)) {
    if (id !== null) return rpcError(200, id, JSONRPC.invalidParams, 'Invalid params: "params" must be an object.');
    return rpcError(400, null, JSONRPC.invalidRequest, 'Invalid request: "params" must be an object.');
  }
  if (!JSONRPCMessageSchema.safeParse(message).success) {
    return rpcError(
      400,
      id,
      JSONRPC.invalidRequest,
      'Invalid request: the message is not a JSON-RPC 2.0 request, notification or response (unknown top-level fields are refused).',
    );
  }

  // After initialize, clients send the negotiated version; an unknown one is refused (as the SDK does), in the hub shape.
  const version = input.headers.get('mcp-protocol-version');
  if (version !== null && message.method !== 'initialize' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return errorResponse(
      'hub',
      400,
      'UnsupportedProtocolVersion',
      `MCP-Protocol-Version ${version.slice(0, 40)} is not supported: send one of ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}, or initialize again to negotiate.`,
    );
  }

  const ctx: ToolContext = { deps, origin: input.origin };
  const isRequest = typeof message.method === 'string' && id !== null;
  if (isRequest) {
    const name = message.method as string;
    const schema = METHODS[name];
    if (!schema) {
      return rpcError(
        200,
        id,
        JSONRPC.methodNotFound,
        `Method not found: ${name}. This server answers ${Object.keys(METHODS).join(', ')} (MCP ${LATEST_PROTOCOL_VERSION} and earlier).`,
      );
    }
    const checked = schema.safeParse(message);
    if (!checked.success) {
      return rpcError(200, id, JSONRPC.invalidParams, `Invalid params for ${name}: ${issuesText(checked.error?.issues ?? [])}.`);
    }
    if (name === 'tools/call') {
      const params = message.params as { name: string; arguments?: unknown };
      const tool = TOOLS_BY_NAME.get(params.name);
      if (!tool) {
        return rpcError(
          200,
          id,
          JSONRPC.invalidParams,
          `Unknown tool: ${params.name}. The tools are ${TOOLS.map((t) => t.name).join(', ')} (see tools/list).`,
        );
      }
      const args = tool.input.safeParse(params.arguments ?? {});
      if (!args.success) {
        ctx.deps.metrics.emit({ type: 'mcp-tool', tool: tool.name, isError: true });
        return rpcResult(id as string | number, argumentError(tool, args.error));
      }
    }
  }

  const server = buildServer(ctx, options);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
    if (version !== null) headers.set('mcp-protocol-version', version);
    // The body was read and parsed above; the transport gets it as `parsedBody`.
    const res = await transport.handleRequest(new Request(input.url, { method: 'POST', headers }), { parsedBody: message });
    const out: Record<string, string> = { 'cache-control': 'no-store' };
    res.headers.forEach((v, k) => {
      out[k.toLowerCase()] = v;
    });
    const bytes = res.status === 202 || res.body === null ? null : new Uint8Array(await res.arrayBuffer());
    if (bytes === null) delete out['content-type'];
    return { status: res.status, headers: out, body: bytes };
  } finally {
    await server.close().catch(() => {});
  }
}
