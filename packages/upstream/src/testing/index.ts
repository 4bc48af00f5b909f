/** `@hub/upstream/testing`: the fake model host the run is tested against (loopback only, its data SYNTHETIC or the
 * recorded rows of fixtures/model-host). */
export {
  type FakeModel,
  FakeUpstream,
  type FakeUpstreamData,
  type FakeUpstreamOptions,
  fakeBucketOf,
  type RealHostOptions,
  type TrendingRow,
} from './fake-upstream.js';
