export { PublishError, publishObject } from './publish-client.js';
export { publishRoutes } from './publish-routes.js';
export { objectRoutes } from './routes.js';
export { httpSpaceSink, publishSpace, type SpaceFileInput, type SpacePublishResult, storeSpaceSink } from './space-client.js';
