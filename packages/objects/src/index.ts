export { objectRoutes, capabilityManifest, OPERATIONS, PROTOCOL_VERSION, SERVER_VERSION, MAXIMUM_MESSAGE_BYTES } from './routes.js';
