/** How busy the event loop of this thread was: `ClientOptions.loopBusy` on Node. */
import { performance } from 'node:perf_hooks';

/** Starts a window; the returned function gives the share of it the event loop was not waiting for I/O (0-1). */
export function nodeLoopBusy(): () => number {
  const start = performance.eventLoopUtilization();
  return () => performance.eventLoopUtilization(start).utilization;
}
