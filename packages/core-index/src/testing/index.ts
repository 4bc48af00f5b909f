export { searchModelsScan } from '../index/search.js';
export {
  type FakeModel,
  FakeUpstream,
  type FakeUpstreamData,
  type FakeUpstreamOptions,
  fakeBucketOf,
  type RealHostOptions,
  type TrendingRow,
} from '../upstream/testing/fake-upstream.js';
export { createTestHub, SYNTHETIC_MODELS, type TestHub } from './fixture.js';
export { request, type TestResponse } from './request.js';
