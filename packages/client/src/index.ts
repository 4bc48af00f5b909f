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
  type Outcome,
  type Progress,
  parseRef,
  type RemoteFile,
  type Sink,
} from './download.js';
export {
  type ArchiveSeen,
  archivedModelFiles,
  catalogRows,
  collectIndexObjects,
  hubCatalogRoot,
} from './hub-objects.js';
export { type LogCheckOptions, modelFilesFromLog, verifyHubLog } from './log.js';
export { nobleHasher } from './noble.js';
export { namingFetch } from './reach.js';
export { globToRegExp, selectFiles, selectQuant } from './select.js';
