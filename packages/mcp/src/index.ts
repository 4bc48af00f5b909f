export { answerMcp, createMcpHandler, JSONRPC, MCP_BODY_LIMIT, type McpInput, mcpRoutes, originAllowed } from './handler.js';
export { TEXT_LIMIT } from './paging.js';
export { buildServer, INSTRUCTIONS, type McpOptions, minimalDescriptor, SERVER_NAME } from './server.js';
export { callTool, TOOLS, type ToolContext, type ToolDef, type ToolResult } from './tools.js';
