export { createTestHub, type TestHub, SYNTHETIC_MODELS } from './fixture.js';
export { FakeUpstream, type FakeUpstreamData, type FakeUpstreamOptions, type FakeModel, type TrendingRow } from '../upstream/testing/fake-upstream.js';
