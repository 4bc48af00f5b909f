export { MCP_BODY_LIMIT, JSONRPC, type McpInput, answerMcp, createMcpHandler, mcpRoutes, originAllowed } from './handler.js';
export { type McpOptions, INSTRUCTIONS, SERVER_NAME, buildServer, minimalDescriptor } from './server.js';
export { TOOLS, type ToolDef, type ToolResult, type ToolContext, callTool } from './tools.js';
export { TEXT_LIMIT } from './paging.js';
