export { searchModelsScan } from '../index/search.js';
export { countedPagedDay, olderRoot } from './counted-day.js';
export { createTestHub, SYNTHETIC_MODELS, type TestHub } from './fixture.js';
export { request } from './request.js';
export { buildWithPages, CountingObjectStore, syntheticId, syntheticModel, syntheticModelStream, syntheticModels } from './scale.js';
