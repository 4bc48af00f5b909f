export { isLfs, isServedRevision, pointerSize } from './model.js';
export { DEFAULT_LIMIT, decodeCursor, encodeCursor, MAX_LIMIT } from './models.js';
export { SHA256SUMS, sha256sums } from './resolve.js';
export { hfRoutes } from './routes.js';
export { parsePathsInfo, splitRefPath } from './tree.js';
