/**
 * `@hub/core-index/light`: the helpers with no dependency (no schema library, no hashing), for a client that must
 * start fast: `hub get` loads only this of core-index (the whole entry costs about 0.3 s of CPU to load, mostly
 * zod). The same functions as the main entry's, not copies.
 */
export { formatBytes } from './index/format.js';
export { boundedAll } from './index/pool.js';
export { defaultQuant, isMmproj, quantOf } from './index/quant.js';
export { MODELSCOPE_URL } from './index/source-kinds.js';
