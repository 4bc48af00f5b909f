/**
 * `@hub/client/get`: what `hub get` and `hub verify-cache` load, and nothing more: the verifying download, file
 * selection, and the Node transport, hasher and file writers. It loads no schema library (the log and catalog checks
 * of `@hub/client`, and the mirror of `@hub/client/node`, load zod, about 0.3 s of CPU at every start).
 */
export {
  type Attempt,
  type ClientOptions,
  downloadAll,
  type FileResult,
  listFiles,
  modelRevision,
  type Progress,
  parseRef,
  type RemoteFile,
} from './download.js';
export { fileSink } from './node/file-sink.js';
export { hfCacheRangeFile, rangeFile } from './node/range-file.js';
export { defaultHfCache, hfCacheSink, nodeGetBytes, nodeHasher, sha256File } from './node/transfer.js';
export { HubAnswerError, namingFetch } from './reach.js';
export { selectFiles } from './select.js';
