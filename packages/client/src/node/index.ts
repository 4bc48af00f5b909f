/** The Node side of @hub/client: node:crypto hashing and a file writer that never leaves unverified bytes at the final path. */

export { fileSink } from './file-sink.js';
export {
  heldFiles,
  type MirrorFileEvent,
  type MirrorModel,
  pullIntoMirror,
  readMirrorManifest,
  verifyMirror,
  writeMirrorManifest,
} from './mirror.js';
export { nodeGetBytes, nodeHasher, sha256File } from './transfer.js';
