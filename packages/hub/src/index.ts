export { agentBrief, BRIEF_CANARY } from './discovery/brief.js';
export { buildDescriptor, preparedDescriptor } from './discovery/descriptor.js';
export { negotiate } from './discovery/negotiate.js';
export { type HubDeps, hubRoutes } from './routes.js';
export { assembleHub, type HostParts, HUB_VERSION, type IndexHolder, indexHolder, mergeSources, type SourceEntry } from './setup.js';
