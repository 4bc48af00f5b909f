export { hubListener, hubMiddleware } from './koa-adapter.js';
export { promMetrics } from './metrics.js';
export { type RunningHub, type StartOptions, startServer } from './server.js';
