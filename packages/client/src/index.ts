/**
 * @hub/client: the verifying download client (design section 9.3). Runtime-neutral: `fetch` only.
 * The expected SHA-256 and size of every file come from the hub's tree, never from a source; the bytes
 * stream from the source the hub chooses and are hashed while they arrive. A wrong hash, a wrong size,
 * a stall or an error status moves the download to the next live source through `/via/{source}/…`.
 * The download itself is in download.ts (what `@hub/client/get` loads); the log and catalog checks here load zod.
 */
export {
  type Attempt,
  type ByteResponse,
  type ClientOptions,
  downloadAll,
  downloadFile,
  type FileResult,
  fetchGetBytes,
  type GetBytes,
  type Hasher,
  type HasherFactory,
  listFiles,
  liveSources,
  memorySink,
  modelRevision,
  nobleHasher,
  type Outcome,
  type Progress,
  parseRef,
  type RemoteFile,
  type Sink,
} from './download.js';
export { collectIndexObjects, type FetchedObject, fetchObject, hubCatalog } from './hub-objects.js';
export { type LogCheckOptions, modelFilesFromLog, verifyHubLog } from './log.js';
export { globToRegExp, selectFiles, selectQuant } from './select.js';
