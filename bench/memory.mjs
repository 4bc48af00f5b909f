// What a bench process holds in memory as it runs: its sampled peak and a progress line's figures.
import v8 from 'node:v8';

const MB = (v) => Math.round(v / 2 ** 20);

/**
 * Samples the resident set every 200 ms; `stop()` gives the peak, and what V8 held at it (its heap used and reserved,
 * array buffers, external memory) with `at()`'s value then (how far the work had got). `snapshotOver`: the first
 * time the resident set passes this many MB, a heap snapshot is written to `snapshotFile` (what holds the memory:
 * open it in Chrome's DevTools, or `node bench/heap-summary.mjs FILE`).
 */
export function peakSampler(at, { snapshotOver, snapshotFile } = {}) {
  let peak = process.memoryUsage().rss;
  let atPeak;
  let snapped = !snapshotOver;
  const timer = setInterval(() => {
    const u = process.memoryUsage();
    if (!snapped && u.rss > snapshotOver * 2 ** 20) {
      snapped = true;
      console.error(`heap snapshot at ${MB(u.rss)} MB (${at()}): ${v8.writeHeapSnapshot(snapshotFile)}`);
    }
    if (u.rss <= peak) return;
    peak = u.rss;
    const parts = ['heapUsed', 'heapTotal', 'arrayBuffers', 'external'].map((k) => [`${k}MB`, MB(u[k])]);
    atPeak = { ...Object.fromEntries(parts), at: at() };
  }, 200);
  return {
    stop() {
      clearInterval(timer);
      return { peakRssMB: MB(Math.max(peak, process.memoryUsage().rss)), ...(atPeak ? { atPeak } : {}) };
    },
  };
}

/** `RSS …, heap … of … MB, array buffers … MB` and, under --expose-gc, the live heap and array buffers after a full collection. */
export function memoryLine() {
  const m = process.memoryUsage();
  let line = `RSS ${MB(m.rss)} MB, heap ${MB(m.heapUsed)} of ${MB(m.heapTotal)} MB, array buffers ${MB(m.arrayBuffers)} MB`;
  if (global.gc) {
    global.gc();
    const u = process.memoryUsage();
    line += `; after a full collection: live heap ${MB(u.heapUsed)} MB, array buffers ${MB(u.arrayBuffers)} MB`;
  }
  return line;
}
