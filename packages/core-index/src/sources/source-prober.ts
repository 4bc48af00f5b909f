import type { Logger } from '../http/deps.js';
import { boundedAll } from '../index/pool.js';
import type { SourceConfig } from '../index/source-kinds.js';
import { type Metrics, noMetrics } from '../observe/metrics.js';
import { probeMirror } from './probe-mirror.js';
import {
  currentProbeState,
  nextProbeDue,
  type ProbeOutcome,
  type ProbeRound,
  type ProbeSettings,
  type ProbeState,
  probedSources,
  probeSource,
  pullForward,
  recordOutcome,
} from './prober.js';
import { MemorySourceHealth } from './source-health.js';

/**
 * Where a host keeps the probe state between rounds and across restarts: a JSON file in the data folder on Node, a
 * KV key at the edge. `read` answers what was last written (or undefined); anything unreadable is the host's to
 * report and counts as nothing stored (the prober then probes afresh).
 */
export interface ProbeStorage {
  read(): Promise<unknown>;
  write(state: ProbeState): Promise<void>;
}

export interface SourceProberOptions {
  sources: SourceConfig[];
  order: string[];
  settings?: Partial<ProbeSettings>;
  /** Absent: the state lives in memory only (a one-off `hub probe` without a data folder). */
  storage?: ProbeStorage;
  fetch?: typeof fetch;
  now?: () => number;
  log?: Logger;
  /** Probe events (each outcome, and each source's state restored from storage); default none. */
  metrics?: Metrics;
}

/** The longest `setTimeout` delay JavaScript runtimes accept. */
const MAX_DELAY = 2_147_483_647;

/**
 * The one prober (issue 13): source health that probes itself. It owns the schedule (due times, the growing
 * re-check of a failing source, demand pulling a re-check forward), the bounded worker pool and the state, which it
 * reads from and writes to a host's {@link ProbeStorage}. It is also the hub's `SourceHealth`: the state a request
 * reads is the state a probe writes, held once.
 *
 * A host only triggers rounds: node-server calls `start()` (a timer that runs `round()` whenever a source is due),
 * the edge's cron trigger calls `round()` once a minute, `hub probe` calls `round({ force: true })`.
 *
 * Rounds may overlap (a timer fires while a stalled probe of an earlier round still runs): a source is never probed
 * twice at once, and at most `concurrency` probes are in flight across all rounds, so a source that stalls for the
 * whole timeout holds back no other source's probe.
 */
export class SourceProber extends MemorySourceHealth {
  private readonly list: SourceConfig[];
  private readonly probed: SourceConfig[];
  private readonly storage: ProbeStorage | undefined;
  private readonly fetchImpl: typeof fetch;
  private readonly log: Logger | undefined;
  private readonly metrics: Metrics;
  /** Sources with a probe running or queued in a round. */
  private readonly inFlight = new Set<string>();
  private readonly rounds = new Set<Promise<unknown>>();
  private readonly stopper = new AbortController();
  private readonly stopping = new Promise<undefined>((resolve) => this.stopper.signal.addEventListener('abort', () => resolve(undefined)));
  private writing: Promise<void> = Promise.resolve();
  private loadedAt = Number.NEGATIVE_INFINITY;
  private loading: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private started = false;
  /** How many times each mirror was probed (which held file its next probe fetches). */
  private readonly mirrorTurns = new Map<string, number>();
  private stopped = false;

  constructor(options: SourceProberOptions) {
    super(options.sources, options.order, {
      ...(options.settings ? { settings: options.settings } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
    this.list = options.sources;
    this.probed = probedSources(options.sources);
    this.storage = options.storage;
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.log = options.log;
    this.metrics = options.metrics ?? noMetrics;
  }

  /** The settings in force (defaults filled in). */
  probeSettings(): ProbeSettings {
    return this.settings;
  }

  /**
   * Read the stored state (records of sources no longer configured, or given another probe file, are dropped). A
   * host calls it once before serving; the edge calls it again through `refreshIfStale`, since its cron runs in
   * another isolate.
   */
  load(): Promise<void> {
    this.loading ??= (this.storage ? this.storage.read() : Promise.resolve(undefined))
      .then((saved) => {
        this.loadedAt = this.now();
        this.probes = currentProbeState(saved as ProbeState | undefined, this.list);
        this.changed();
        for (const [source, r] of Object.entries(this.probes.sources)) this.metrics.emit({ type: 'source-state', source, ok: r.ok });
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  /** Re-read the stored state when the last read is older than `maxAgeSeconds` (else undefined). */
  refreshIfStale(maxAgeSeconds: number): Promise<void> | undefined {
    if (this.loading || this.now() - this.loadedAt < maxAgeSeconds * 1000) return undefined;
    return this.load();
  }

  /** When the earliest source that is not being probed is due (ms since epoch), or undefined. */
  nextDue(): number | undefined {
    return nextProbeDue(
      this.probes,
      this.probed.filter((s) => !this.inFlight.has(s.name)),
      this.now(),
    );
  }

  /**
   * One round: every source with a probe file that is due (every one, with `force`) and not already being probed
   * is probed, within the free slots of the pool; each outcome is folded into the state as soon as it is known, and
   * the state is written to storage when the round ends. Never throws for a source's failure. `only` limits the round to
   * the sources named (a host's first read of its mirrors before it listens).
   */
  async round(options: { force?: boolean; only?: readonly string[] } = {}): Promise<ProbeRound> {
    const start = this.now();
    const due: SourceConfig[] = [];
    const skipped: string[] = [];
    for (const s of this.probed) {
      if (options.only && !options.only.includes(s.name)) continue;
      const r = this.probes.sources[s.name];
      if (!this.stopped && !this.inFlight.has(s.name) && (options.force || !r || Date.parse(r.next) <= start)) due.push(s);
      else skipped.push(s.name);
    }
    const free = this.settings.concurrency - this.inFlight.size;
    // A forced round (`hub probe`) probes everything, queued in its own pool; a scheduled one takes the free slots,
    // most overdue first (never probed before all), and leaves the rest to the next round, which a finishing probe
    // triggers.
    const dueAt = (s: SourceConfig) => {
      const r = this.probes.sources[s.name];
      return r ? Date.parse(r.next) : Number.NEGATIVE_INFINITY;
    };
    const launch = options.force ? due : [...due].sort((a, b) => dueAt(a) - dueAt(b)).slice(0, Math.max(0, free));
    skipped.push(...due.filter((s) => !launch.includes(s)).map((s) => s.name));
    for (const s of launch) this.inFlight.add(s.name);
    // The timer now waits for the next source that is not in flight (a timer that fired early finds nothing due).
    this.arm();
    const outcomes = new Map<string, ProbeOutcome>();
    const work = boundedAll(launch, Math.max(1, options.force ? this.settings.concurrency : free), async (s) => {
      try {
        const options = {
          fetch: this.fetchWithStop,
          now: this.now,
          timeoutSeconds: this.settings.timeoutSeconds,
          maxBytes: this.settings.maxBytes,
        };
        let outcome: ProbeOutcome | undefined;
        if (s.kind === 'mirror') {
          // a mirror: its manifest says what it holds from now on, then one held file is fetched and hashed
          const turn = this.mirrorTurns.get(s.name) ?? 0;
          this.mirrorTurns.set(s.name, turn + 1);
          const probed = await Promise.race([probeMirror(s, options, turn), this.stopping]);
          if (probed?.holding && !this.stopped) this.probes.mirrors = { ...this.probes.mirrors, [s.name]: probed.holding };
          outcome = probed?.outcome;
        } else outcome = await Promise.race([probeSource(s, options), this.stopping]);
        // A probe cut off by stop() is dropped, not recorded (a fetch that ignores the abort ends on its own deadline).
        if (this.stopped || !outcome) return;
        const was = this.probes.sources[s.name];
        const record = recordOutcome(this.probes, s, outcome, this.settings);
        this.changed();
        outcomes.set(s.name, outcome);
        this.metrics.emit({ type: 'probe', source: s.name, ok: outcome.ok, reason: outcome.reason, seconds: outcome.ms / 1000 });
        this.logOutcome(outcome, was?.ok, record.next);
      } finally {
        this.inFlight.delete(s.name);
        this.arm();
      }
    });
    this.rounds.add(work);
    try {
      await work;
    } finally {
      this.rounds.delete(work);
    }
    const results = this.probed.map((s) => outcomes.get(s.name)).filter((o): o is ProbeOutcome => o !== undefined);
    if (results.length) await this.save();
    return {
      results,
      skipped,
      unprobed: this.list.filter((s) => s.redirect !== false && !this.probed.includes(s)).map((s) => s.name),
      state: this.probes,
      nextDue: nextProbeDue(this.probes, this.list, this.now()),
    };
  }

  /** Run rounds on a timer, each when the next source is due (node-server's trigger). */
  start(): void {
    if (this.stopped || this.started) return;
    this.started = true;
    const first = this.nextDue();
    if (first !== undefined)
      this.log?.info({ sources: this.probed.map((s) => s.name), firstInMs: Math.max(0, first - this.now()) }, 'prober started');
    this.arm();
  }

  /**
   * Stop running rounds on the timer, leaving probes in flight to finish (another process sharing the state runs the
   * rounds now; issue 41). `start()` resumes.
   */
  pause(): void {
    this.started = false;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Stop the timer, abort probes in flight (their outcomes are dropped), finish pending writes, write nothing more. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.stopper.abort();
    await Promise.allSettled([...this.rounds]);
    await this.writing;
  }

  protected override wanted(holders: string[]): void {
    // Demand pulls a failing holder's re-check forward (issue 19), where a timer can act on it.
    if (!this.started || this.stopped) return;
    if (pullForward(this.probes, holders, this.now(), this.settings).length) this.arm();
  }

  /** A probe in flight when the prober stops is aborted, not waited for. */
  private readonly fetchWithStop: typeof fetch = (input, init) =>
    this.fetchImpl(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, this.stopper.signal]) : this.stopper.signal });

  /** Set the timer for the next due source (when a slot is free; a finishing probe arms it again). */
  private arm(): void {
    if (this.stopped || !this.started) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.inFlight.size >= this.settings.concurrency) return;
    const next = this.nextDue();
    if (next === undefined) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.round().catch((e: unknown) => this.log?.error({ err: (e as Error).message }, 'probe round failed'));
      },
      Math.min(MAX_DELAY, Math.max(0, next - this.now())),
    );
    (this.timer as { unref?: () => void }).unref?.();
  }

  /** Writes are chained, each writing the state as it is when its turn comes, so the newest wins. */
  private save(): Promise<void> {
    const storage = this.storage;
    if (!storage) return Promise.resolve();
    this.writing = this.writing.then(async () => {
      try {
        await storage.write(this.probes);
      } catch (e) {
        this.log?.warn({ err: (e as Error).message }, 'could not persist probe results');
      }
    });
    return this.writing;
  }

  private logOutcome(r: ProbeOutcome, wasOk: boolean | undefined, next: string): void {
    const fields = {
      source: r.name,
      ok: r.ok,
      reason: r.reason,
      ms: r.ms,
      ...(r.status ? { status: r.status } : {}),
      ...(r.detail ? { detail: r.detail } : {}),
    };
    if (r.ok && wasOk === false) this.log?.info(fields, 'source back: probe passed');
    else if (!r.ok && wasOk !== false) this.log?.warn({ ...fields, recheck: next }, 'source down: no redirects to it until a probe passes');
    else this.log?.debug(fields, 'probe');
  }
}

/** A storage that keeps the state in memory (tests, and a `hub probe` without a data folder). */
export function memoryProbeStorage(initial?: ProbeState): ProbeStorage & { saved: () => ProbeState | undefined; writes: () => number } {
  let saved: ProbeState | undefined = initial ? structuredClone(initial) : undefined;
  let writes = 0;
  return {
    read: async () => (saved ? structuredClone(saved) : undefined),
    write: async (state) => {
      writes++;
      saved = structuredClone(state);
    },
    saved: () => saved,
    writes: () => writes,
  };
}
