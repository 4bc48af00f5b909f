export { searchModelsScan } from '../index/search.js';
/** The build's tabulation of search words of one or two characters, for bench/short-grams.mjs. */
export { ShortGrams } from '../index/term-pages.js';
export { createTestHub, SYNTHETIC_MODELS, type TestHub } from './fixture.js';
export { request } from './request.js';
export { buildWithPages, CountingObjectStore, syntheticId, syntheticModelStream, syntheticModels } from './scale.js';
