export { installFastBlake3 } from './blake3-node.js';
export { hubMiddleware } from './koa-middleware.js';
export { MadeAnswersAlongBuild } from './made-answers-build.js';
export { promMetrics } from './metrics.js';
export { hubListener } from './node-listener.js';
export { type RunningHub, type StartOptions, startServer } from './server.js';
