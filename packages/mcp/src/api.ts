import { jsonContent, type RouteApi, ref } from '@hub/core-index';

/** The MCP endpoint's answers and body, beside its routes. */
export const MCP_API: Record<string, RouteApi> = {
  'POST /mcp': {
    responses: {
      '200': { description: 'A JSON-RPC response (a failing tool is a result with isError)', content: jsonContent(ref('JsonRpcResponse')) },
      '202': { description: 'A notification was accepted' },
      '400': { description: 'Unparseable JSON or an invalid envelope (JSON-RPC error)', content: jsonContent(ref('JsonRpcResponse')) },
    },
    body: { required: true, content: jsonContent(ref('JsonRpcRequest')) },
  },
  'GET /mcp': { responses: { '405': { description: 'MCP is POST only', content: jsonContent(ref('HubError')) } } },
  'DELETE /mcp': { responses: { '405': { description: 'Stateless: no session to delete', content: jsonContent(ref('HubError')) } } },
};
