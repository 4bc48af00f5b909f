export { fetchObject, PublishError, type PublishOptions, type PublishResult, publishObject } from './publish-client.js';
export {
  acceptObject,
  CHUNK_BYTES,
  CHUNK_KIND,
  CHUNKED_FORMAT,
  CHUNKED_KIND,
  type ChunkedRecord,
  publishRoutes,
} from './publish-routes.js';
export { capabilityManifest, MAXIMUM_MESSAGE_BYTES, OPERATIONS, objectRoutes, PROTOCOL_VERSION, SERVER_VERSION } from './routes.js';
export {
  buildSpace,
  httpSpaceSink,
  publishSpace,
  SPACE_FILE_KIND,
  type SpaceFileInput,
  type SpaceMeta,
  type SpacePublishResult,
  type SpaceSink,
  storeSpaceSink,
} from './space-client.js';
