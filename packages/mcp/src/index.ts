export { createMcpHandler, mcpRoutes } from './handler.js';
