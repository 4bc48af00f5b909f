import { type CoreDeps, type IndexStore, isAddress } from '@hub/core-index';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { ANNOTATIONS, callTool, TOOLS, TOOLS_BY_NAME, type ToolContext } from './tools.js';
import * as z from './zod.js';

export const SERVER_NAME = 'model-hub';

export interface McpOptions {
  /**
   * The descriptor served as the resource `hub://descriptor`. The hub passes the one it serves at
   * `/.well-known/model-hub.json` (with its transparency log's announcement); without one a small
   * descriptor is built from the index.
   */
  descriptor?: (index: IndexStore, origin: string, deps: CoreDeps) => unknown;
}

export const INSTRUCTIONS =
  'A read-only hub for open model files. Find a model with hub_repo_search, inspect it with hub_repo_details, then call get_download for the URL, the SHA-256 and the exact curl and sha256sum commands. The hub never serves weight bytes: its URLs redirect to a live source, and the checksum comes from the index. hub_health shows which sources are live; hub_archive lists earlier days of the index.';

/**
 * JSON Schema validation of elicitation answers is the only use the SDK's server makes of a JSON
 * Schema validator; this server never elicits, so it needs none. Passing this keeps Ajv (which
 * compiles with `new Function`, refused at the edge) from being set up for every request.
 */
const noValidator: jsonSchemaValidator = {
  getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'This server does not validate JSON Schemas.' }),
};

/** The small descriptor used when the host passes none: enough for an agent to find the catalog. */
export function minimalDescriptor(index: IndexStore): Record<string, unknown> {
  return {
    format: 'svc.model-hub.descriptor/v1',
    name: 'model hub',
    about: 'A read-only hub for open model files: names, addresses and directions, never weight bytes.',
    catalog: index.catalogAddress,
    snapshot: index.snapshot,
    fetch: '/api/v1/objects/{id}',
    find: 'GET /api/models?search=…, or the hub_repo_search tool at /mcp.',
    openapi: '/openapi.json',
    registry: '/v2/',
    guide: '/llms.txt',
  };
}

function catalogUri(address: string): string {
  return `hub://catalog/${address}`;
}

/** One MCP server for one request (stateless: nothing survives the request). */
export function buildServer(ctx: ToolContext, options: McpOptions = {}): McpServer {
  const { deps } = ctx;
  const server = new McpServer(
    { name: SERVER_NAME, title: 'Model hub', version: deps.settings.version },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: noValidator,
    },
  );

  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: { title: tool.title, ...ANNOTATIONS } },
      async (args: unknown) => {
        const result = await callTool(tool, args, ctx);
        // One event per tools/call (design 10.2); the tool name comes from the tool table, never from the client.
        ctx.deps.metrics.emit({ type: 'mcp-tool', tool: tool.name, isError: result.isError === true });
        return result;
      },
    );
  }

  server.registerResource(
    'descriptor',
    'hub://descriptor',
    {
      title: 'Hub descriptor',
      description: "The hub's descriptor (svc.model-hub.descriptor/v1): today's catalog address and how to fetch, find and verify.",
      mimeType: 'application/json',
    },
    async (uri) => {
      const index = deps.index();
      const value = options.descriptor ? await options.descriptor(index, ctx.origin, deps) : minimalDescriptor(index);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }] };
    },
  );

  server.registerResource(
    'catalog',
    new ResourceTemplate('hub://catalog/{address}', {
      list: async () => {
        const index = deps.index();
        return {
          resources: [
            {
              uri: catalogUri(index.catalogAddress),
              name: `catalog-${index.snapshot}`,
              title: `Today's catalog (${index.snapshot})`,
              description: `Every browse row and model object address of ${index.snapshot} (${index.totals.models} models). Canonical JSON; its BLAKE3 is the address.`,
              mimeType: 'application/json',
            },
          ],
        };
      },
    }),
    {
      title: 'Catalog by address',
      description: 'A catalog (or any hub object) by its blake3: address, as canonical JSON. Older days are listed by hub_archive.',
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const address = decodeURIComponent(String(variables.address ?? ''));
      if (!isAddress(address)) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `"${address}" is not a hub object address. Fix: use hub://catalog/blake3:<64 hex>, e.g. ${catalogUri(deps.index().catalogAddress)}.`,
        );
      }
      const bytes = await deps.index().object(address);
      if (!bytes) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `No object at ${address}. Fix: read ${catalogUri(deps.index().catalogAddress)} for today's catalog, or find older days with hub_archive.`,
        );
      }
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: new TextDecoder().decode(bytes) }] };
    },
  );

  server.registerPrompt(
    'download-and-verify',
    {
      title: 'Download and verify a model',
      description: 'Steps to download a model file from this hub and check its SHA-256 against the index.',
      argsSchema: {
        model: z.string().describe('Model id "owner/name" (or "owner/name:QUANT")'),
        quant: z.string().optional().describe('GGUF quantisation, e.g. Q4_K_M (optional)'),
        path: z.string().optional().describe('One exact file path instead of a quantisation (optional)'),
      },
    },
    async ({ model, quant, path }) => {
      const args: Record<string, string> = { model };
      if (quant) args.quant = quant;
      if (path) args.path = path;
      const download = TOOLS_BY_NAME.get('get_download');
      const now = download ? await callTool(download, args, ctx) : undefined;
      const steps = [
        `Download ${model}${quant ? ` (${quant})` : ''}${path ? ` file ${path}` : ''} from the model hub at ${ctx.origin} and verify it.`,
        `1. Call the tool get_download with ${JSON.stringify(args)}. It gives the URL on this hub, the SHA-256 and size from the index, and the source the hub redirects to now.`,
        '2. Run its curl command exactly (curl -fL follows the redirect to the live source).',
        '3. Run its sha256sum -c command. It must print "<file>: OK". If it prints FAILED, delete the file, report the mismatch, and do not use the bytes; the expected hash never comes from the server that sent them.',
        '4. If the download answers 503, no source is live right now: call hub_health and try again later.',
      ];
      if (now && !now.isError) steps.push('', 'What get_download answers right now:', now.content[0]?.text ?? '');
      else if (now?.isError) steps.push('', `Note: get_download answers now: ${now.content[0]?.text ?? ''}`);
      return {
        description: `Download and verify ${model}`,
        messages: [{ role: 'user', content: { type: 'text', text: steps.join('\n') } }],
      };
    },
  );

  // Registering tools, resources and prompts turns `listChanged` on; a stateless server never sends those
  // notifications, so say so.
  server.server.registerCapabilities({ tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } });
  return server;
}
