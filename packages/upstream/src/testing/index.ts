export type { FakeUpstreamData } from './fake-types.js';
export { FakeUpstream } from './fake-upstream.js';
