export { objectRoutes, capabilityManifest, OPERATIONS, PROTOCOL_VERSION, SERVER_VERSION, MAXIMUM_MESSAGE_BYTES } from './routes.js';
export { publishRoutes, CHUNK_BYTES, CHUNK_KIND, CHUNKED_KIND, CHUNKED_FORMAT, type ChunkedRecord } from './publish-routes.js';
export { publishObject, fetchObject, PublishError, type PublishOptions, type PublishResult } from './publish-client.js';
