export { UpstreamClient } from './client.js';
export { runUpstreamBuild } from './run.js';
export type { BuildProgress, BuildSummary } from './types.js';
