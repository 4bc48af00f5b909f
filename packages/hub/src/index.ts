export { cacheUse } from './cache-use.js';
export { dayOf, HUB_MADE_ANSWERS, INDEX_STORE_KINDS, indexStoreKind, openDay, PAGED_FROM_MODELS, servedFromPages } from './index-choice.js';
export { type HubDeps, hubRoutes } from './routes.js';
export { assembleHub, indexHolder, mergeSources, type SourceEntry } from './setup.js';
