import type { Logger } from '@hub/core-index';
import { HeldLease } from '@hub/objects/node';

export interface RefreshSchedule {
  /** `daily` runs at a fixed UTC time; otherwise every `intervalMs`. */
  kind: 'daily' | 'interval';
  intervalMs: number;
  /** minutes after 00:00 UTC, for `daily` */
  atMinutes: number;
}

export class RefreshError extends Error {}

/** `daily`, `hourly`, or `<N>h` / `<N>m`; `at` is `HH:MM` UTC for daily (default 03:00). */
export function parseRefresh(value: string, at = '03:00'): RefreshSchedule {
  const m = /^(\d{1,2}):(\d{2})$/.exec(at);
  if (!m || Number(m[1]) > 23 || Number(m[2]) > 59) throw new RefreshError(`--refresh-at ${at}: expected HH:MM (UTC)`);
  const atMinutes = Number(m[1]) * 60 + Number(m[2]);
  if (value === 'daily') return { kind: 'daily', intervalMs: 24 * 3600_000, atMinutes };
  if (value === 'hourly') return { kind: 'interval', intervalMs: 3600_000, atMinutes };
  const n = /^(\d{1,4})(h|m)$/.exec(value);
  if (n && Number(n[1]) > 0) return { kind: 'interval', intervalMs: Number(n[1]) * (n[2] === 'h' ? 3600_000 : 60_000), atMinutes };
  throw new RefreshError(`--refresh ${value}: expected daily, hourly, <N>h or <N>m`);
}

/** When the next run is due after `now`. */
export function nextRunAt(s: RefreshSchedule, now: number): number {
  if (s.kind === 'interval') return now + s.intervalMs;
  const day = Math.floor(now / 86_400_000) * 86_400_000;
  const today = day + s.atMinutes * 60_000;
  return today > now ? today : today + 86_400_000;
}

export interface RefreshOptions {
  schedule: RefreshSchedule;
  /** Build a new index into the data folder (switching the `current` ref). */
  build: () => Promise<{ catalog: string; models: number }>;
  /** Swap the running hub to the `current` ref (RunningHub.reload). */
  reload: () => Promise<unknown>;
  log: Logger;
  now?: () => number;
  /** After a failed run, try again this much later (default 1 hour) rather than waiting a whole period. */
  retryMs?: number;
}

export interface Refresher {
  /** Run a build and switch now (skipped when one is already running). */
  runNow(): Promise<{ catalog: string; models: number } | undefined>;
  nextAt(): number;
  stop(): void;
}

/** `hub serve --refresh daily`: run the index build on a timer and switch the served index without a restart. */
export function startRefresh(o: RefreshOptions): Refresher {
  const now = o.now ?? Date.now;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let next = nextRunAt(o.schedule, now());
  let running: Promise<{ catalog: string; models: number } | undefined> | undefined;
  let stopped = false;

  const arm = (at: number) => {
    if (stopped) return;
    next = at;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void runNow(), Math.max(0, Math.min(at - now(), 2 ** 31 - 1)));
    timer.unref?.();
    o.log.info({ event: 'refresh-scheduled', next: new Date(at).toISOString() }, 'next index build scheduled');
  };

  async function runNow() {
    if (running) return undefined;
    running = (async () => {
      const started = now();
      try {
        o.log.info({ event: 'refresh-start' }, 'index build started');
        const r = await o.build();
        await o.reload();
        o.log.info(
          { event: 'refresh-done', catalog: r.catalog, models: r.models, seconds: (now() - started) / 1000 },
          'index built and switched',
        );
        arm(nextRunAt(o.schedule, now()));
        return r;
      } catch (e) {
        o.log.error({ event: 'refresh-failed', err: (e as Error).message?.slice(0, 500) }, 'index build failed; the current index stays');
        arm(Math.min(nextRunAt(o.schedule, now()), now() + (o.retryMs ?? 3600_000)));
        return undefined;
      } finally {
        running = undefined;
      }
    })();
    return running;
  }

  arm(next);
  return {
    runNow,
    nextAt: () => next,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

export interface SharedRefreshOptions extends RefreshOptions {
  /** The lease file (`DIR/locks/refresh.lock`) that names the one process running the builds. */
  leaseFile: string;
  leaseMs: number;
  /** How long ago the served index was switched (ms), or undefined when unknown. */
  indexAge: () => Promise<number | undefined>;
}

/** The period of a schedule: a build older than this is overdue. */
function period(s: RefreshSchedule): number {
  return s.kind === 'daily' ? 24 * 3600_000 : s.intervalMs;
}

/**
 * `hub serve --refresh` in several processes on one data folder (issue 41): only the holder of the refresh lease
 * runs the schedule, so exactly one build runs at a time. A process that takes the lease over (its holder was killed,
 * perhaps mid-build) first builds at once when the served index is older than one period, then keeps the schedule.
 */
export function startSharedRefresh(o: SharedRefreshOptions): Pick<Refresher, 'stop'> & { lease: HeldLease } {
  let refresher: Refresher | undefined;
  const lease = new HeldLease(o.leaseFile, {
    leaseMs: o.leaseMs,
    ...(o.now ? { now: o.now } : {}),
    onChange: (held) => {
      if (held) {
        o.log.info({ event: 'refresh-lease', held: true, pid: process.pid }, 'this process runs the index builds');
        refresher = startRefresh(o);
        void o.indexAge().then((age) => {
          if (lease.held && refresher && (age === undefined || age >= period(o.schedule))) void refresher.runNow();
        });
      } else {
        o.log.warn({ event: 'refresh-lease', held: false }, 'another process runs the index builds now');
        refresher?.stop();
        refresher = undefined;
      }
    },
  });
  void lease.start();
  return {
    lease,
    stop() {
      refresher?.stop();
      void lease.stop();
    },
  };
}
