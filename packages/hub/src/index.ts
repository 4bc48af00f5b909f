export { createHub, splitUrl, type Hub, type HubSiteSettings } from './create-hub.js';
export {
  EXPOSED_HEADERS,
  bearerToken,
  registryCredential,
  timingSafeEqualString,
  tokenMatches,
  withoutCredentials,
} from './rules.js';
export { hubRoutes, type HubDeps } from './routes.js';
export { buildDescriptor, preparedDescriptor } from './discovery/descriptor.js';
export { agentBrief, BRIEF_CANARY } from './discovery/brief.js';
export { negotiate } from './discovery/routes.js';
