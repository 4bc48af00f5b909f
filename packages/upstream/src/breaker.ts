import type { Logger } from '@hub/core-index';
import { isTransient, UpstreamError } from './errors.js';

/** How a secondary source fared today. */
export type SourceCheck = 'checked' | 'unreachable' | 'off';

/**
 * A circuit breaker around a secondary source (the second public host): after `threshold` consecutive
 * network failures (refused, reset, timed out, 5xx) the run stops asking it for the rest of the run, says
 * so once, and the source counts as not checked today. A success closes the count again.
 */
export class SourceBreaker {
  private consecutive = 0;
  private open = false;
  /** lookups answered, failed, and not asked because the breaker was open */
  readonly stats = { asked: 0, failed: 0, notAsked: 0 };

  constructor(
    readonly source: string,
    private readonly log: Logger,
    private readonly threshold = 3,
  ) {}

  get state(): SourceCheck {
    return this.open ? 'unreachable' : 'checked';
  }

  /** `fn`'s answer; `{ skipped: true }` when the breaker is open or this call failed. */
  async call<T>(fn: () => Promise<T>): Promise<{ skipped: false; value: T } | { skipped: true }> {
    if (this.open) {
      this.stats.notAsked++;
      return { skipped: true };
    }
    this.stats.asked++;
    try {
      const value = await fn();
      this.consecutive = 0;
      return { skipped: false, value };
    } catch (e) {
      this.stats.failed++;
      const network = isTransient(e) || (e instanceof UpstreamError && e.status === 403);
      if (network) this.consecutive++;
      if (network && this.consecutive >= this.threshold && !this.open) {
        this.open = true;
        this.log.warn(
          { event: 'source-unreachable', source: this.source, failures: this.consecutive, err: (e as Error).message?.slice(0, 200) },
          `${this.source} is unreachable: not asked again in this run (not checked today)`,
        );
      } else if (!this.open) {
        this.log.warn(
          { event: 'source-lookup-failed', source: this.source, err: (e as Error).message?.slice(0, 200) },
          'source lookup failed',
        );
      }
      return { skipped: true };
    }
  }
}
