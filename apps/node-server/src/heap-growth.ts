/**
 * How far V8 lets the heap grow past what a full collection left alive, for `hub serve`
 * (docs/decisions/scale-and-speed.md "A bound on the heap's headroom"). By default V8 grows old space by a factor of up
 * to 4 when the collector is fast next to the program: a hub under load, with about 60 MB alive, held 160–460 MB of old
 * space between collections (RSS 275–552 MB at 1,000,000 models). At 50 % the same load held 71 MB (RSS 176 MB).
 */
import v8 from 'node:v8';

/** The default growth past the live heap after a full collection, in percent. */
export const HEAP_GROWING_PERCENT = 50;

/**
 * The growth for `hub index build`: its live heap grows with the index (about 0.45 KB a model for the look-up pages'
 * tables, 450 MB at 1,000,000 models), so the headroom is the most of its peak; 25 % kept a 1,000,000-model build
 * under 1 GB (docs/benchmarks.md).
 */
export const BUILD_HEAP_GROWING_PERCENT = 25;

/**
 * Set V8's `--heap-growing-percent` (read at every collection, so it applies after start) unless the operator chose
 * one (`node --heap-growing-percent=N` or `NODE_OPTIONS`). Returns the value set, or undefined when left alone.
 */
export function boundHeapGrowth(
  percent = HEAP_GROWING_PERCENT,
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): number | undefined {
  if ([...execArgv, nodeOptions].some((a) => /heap[-_]growing[-_]percent/.test(a))) return undefined;
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
  return percent;
}
