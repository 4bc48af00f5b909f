/** The daily index run against an upstream model host: `@hub/upstream` (a package of its own so
 * runtime bundles such as the Worker do not carry the crawler and its GGUF reader). */

export { runUpstreamBuild } from './run.js';
export type { BuildProgress, BuildSummary } from './types.js';
