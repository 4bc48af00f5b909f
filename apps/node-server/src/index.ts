// The demo tree, the from-dir builder and the static mirror live in @hub/node-toolkit; re-exported for operators' scripts.
export {
  buildFromDir,
  DEMO_DATE,
  DEMO_SOURCE,
  demoTreeDir,
  type FromDirOptions,
  type StaticMirror,
  seedDemo,
  startStaticMirror,
} from '@hub/node-toolkit';
export { installFastBlake3 } from './blake3-node.js';
export { ConfigError, type HubConfigFile, readConfigFile, resolveConfig } from './config.js';
export { hubListener, hubMiddleware, toHubRequest, writeHubResponse } from './koa-adapter.js';
export { createLogger } from './logger.js';
export { type PromMetrics, promMetrics } from './metrics.js';
export { FileMissingLog } from './missing-log.js';
export { type RunningHub, type StartOptions, startServer, VERSION } from './server.js';
export { type VerifyReport, verifyStore } from './verify.js';
