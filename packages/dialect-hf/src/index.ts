export { hfRoutes } from './routes.js';
export { DEFAULT_LIMIT, MAX_LIMIT, decodeCursor, encodeCursor } from './models.js';
export { SHA256SUMS, sha256sums } from './resolve.js';
export { isLfs, isServedRevision, pointerSize } from './model.js';
export { parsePathsInfo, splitRefPath } from './tree.js';
