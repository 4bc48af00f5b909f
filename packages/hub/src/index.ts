export { createHub, type Hub, type HubSiteSettings, splitUrl } from './create-hub.js';
export { agentBrief, BRIEF_CANARY } from './discovery/brief.js';
export { buildDescriptor, preparedDescriptor } from './discovery/descriptor.js';
export { negotiate } from './discovery/routes.js';
export { type HubDeps, hubRoutes } from './routes.js';
export {
  bearerToken,
  EXPOSED_HEADERS,
  registryCredential,
  shapeForPath,
  timingSafeEqualString,
  tokenMatches,
  withoutCredentials,
} from './rules.js';
