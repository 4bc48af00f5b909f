import { BoundedQueue, type BuildModelInput } from '@hub/core-index';
import { SourceBreaker } from './breaker.js';
import { UpstreamClient } from './client.js';
import type { RunContext } from './context.js';
import { httpModelScope, type ModelScopeAdapter } from './modelscope.js';
import type { Yesterday } from './yesterday.js';

/** Secondary-source lookups, off the models' own path: a bounded queue behind a circuit breaker. */
export class SourceLookups {
  private readonly pending: Promise<void>[] = [];
  private readonly slots: BoundedQueue;

  constructor(
    readonly adapter: ModelScopeAdapter,
    readonly breaker: SourceBreaker,
    private readonly yesterday: Yesterday,
    concurrency = 2,
  ) {
    this.slots = new BoundedQueue(concurrency);
  }

  /** Look the model up (later, without holding up the caller); then `done` with its sources. */
  add(model: BuildModelInput, done: (m: BuildModelInput) => Promise<void>): void {
    this.pending.push(
      this.slots.run(async () => {
        const sources = [...model.sources];
        const r = await this.breaker.call(() => this.adapter.find({ id: model.id, files: model.files }));
        if (!r.skipped && r.value) sources.push(r.value);
        else if (r.skipped) {
          // Not checked today: yesterday's record of this source stays for the same revision.
          const prev = await this.yesterday.model(model.id);
          if (prev && prev.revision === model.revision)
            sources.push(...(await this.yesterday.sources(model.id)).filter((s) => s.source === this.adapter.source));
        }
        await done({ ...model, sources });
      }),
    );
  }

  async settle(): Promise<void> {
    await Promise.all(this.pending);
  }
}

/** The second public host as a source, behind its breaker; its client never carries the upstream's token. */
export function secondarySources(rc: RunContext, deadline: number): SourceLookups | undefined {
  const o = rc.options;
  let adapter: ModelScopeAdapter | undefined;
  if (o.modelscope && 'find' in o.modelscope) adapter = o.modelscope;
  else if (o.modelscope) {
    const ua = o.http?.headers?.['user-agent'];
    // Few retries and a short timeout: a dark source costs seconds, and the breaker stops asking it.
    const msClient = new UpstreamClient({
      ...o.http,
      retries: Math.min(o.http?.retries ?? 1, 1),
      timeoutMs: Math.min(o.http?.timeoutMs ?? 20_000, 20_000),
      headers: ua ? { 'user-agent': ua } : {},
      fetch: o.fetch,
      clock: rc.clock,
      // Paced like the upstream, but a secondary source waits for its windows at most an hour: past that its lookups
      // fail (and the breaker counts them), so a throttled source never holds the day's index for hours.
      deadline: Math.min(deadline, rc.clock.now() + 3600_000),
    });
    adapter = httpModelScope(msClient, o.modelscope);
  }
  if (!adapter) return undefined;
  return new SourceLookups(adapter, new SourceBreaker(adapter.source, rc.log, o.breakerThreshold ?? 3), rc.yesterday);
}
