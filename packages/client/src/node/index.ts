/** The Node side of @hub/client: node:crypto hashing and a file writer that never leaves unverified bytes at the final path. */

export {
  heldFiles,
  isMirrorFolder,
  type MirrorFileEvent,
  type MirrorModel,
  type PullReport,
  pullIntoMirror,
  readMirrorManifest,
  type VerifyEvent,
  verifyMirror,
  writeMirrorManifest,
} from './mirror.js';
export {
  defaultHfCache,
  fileSink,
  hfCacheSink,
  hfRepoFolder,
  nodeGetBytes,
  nodeHasher,
  WORKER_HASH_MIN_BYTES,
  workerHasher,
} from './transfer.js';
