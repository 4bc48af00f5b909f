export { promMetrics } from './metrics.js';
export { hubListener, hubMiddleware } from './node-listener.js';
export { type RunningHub, type StartOptions, startServer } from './server.js';
