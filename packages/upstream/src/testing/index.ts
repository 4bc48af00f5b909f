export { FakeUpstream, type FakeUpstreamData } from './fake-upstream.js';
