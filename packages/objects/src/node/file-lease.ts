import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, stat, unlink, utimes } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * Leases in a folder that several processes share (one machine, or several on a shared volume; issue 41): a
 * file created with O_EXCL holds who took it, and its mtime is the holder's heartbeat. A holder renews it every
 * quarter of the lease; a file not renewed for three quarters of the lease is stale, and the next taker replaces it.
 * So a killed holder keeps a lease at most one lease interval after its last heartbeat, and nothing needs the
 * holder's pid to be alive on this machine. Replacing a stale file goes through a second O_EXCL file (`….takeover`),
 * so of several takers one wins.
 */

export interface LeaseBody {
  owner: string;
  pid: number;
  host: string;
  since: string;
}

type Age = 'gone' | 'stale' | 'fresh';

async function age(file: string, staleMs: number, now: number): Promise<Age> {
  try {
    const s = await stat(file);
    return now - s.mtimeMs > staleMs ? 'stale' : 'fresh';
  } catch {
    return 'gone';
  }
}

/** Create `file` only when it does not exist, holding `body`; false when it exists. */
async function createExclusive(file: string, body: LeaseBody): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, 'wx');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    await handle.writeFile(JSON.stringify(body));
  } finally {
    await handle.close();
  }
  return true;
}

/** Who holds the lease in `file` (undefined when nobody, or while a taker is still writing it). */
export async function leaseHolder(file: string): Promise<LeaseBody | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as LeaseBody;
  } catch {
    return undefined;
  }
}

/** Take the lease in `file` for `owner` when it is free or stale. True when `owner` holds it now. */
export async function tryTakeLease(file: string, owner: string, leaseMs: number, now = Date.now()): Promise<boolean> {
  await mkdir(path.dirname(file), { recursive: true });
  const body: LeaseBody = { owner, pid: process.pid, host: os.hostname(), since: new Date(now).toISOString() };
  const staleMs = (leaseMs * 3) / 4;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await createExclusive(file, body)) return true;
    const state = await age(file, staleMs, now);
    if (state === 'gone') continue;
    if (state === 'fresh') return (await leaseHolder(file))?.owner === owner;
    // Stale: replace it, one taker at a time.
    const guard = `${file}.takeover`;
    if (!(await createExclusive(guard, body))) {
      // A taker killed between its two steps leaves the guard behind; it goes stale like the lease.
      if ((await age(guard, staleMs, now)) === 'stale') await unlink(guard).catch(() => {});
      return false;
    }
    try {
      if ((await age(file, staleMs, now)) === 'fresh') return false;
      await unlink(file).catch(() => {});
      return await createExclusive(file, body);
    } finally {
      await unlink(guard).catch(() => {});
    }
  }
  return false;
}

/** Renew the heartbeat when `owner` still holds `file`; false when the lease was lost (taken over, or removed). */
export async function renewLease(file: string, owner: string, now = Date.now()): Promise<boolean> {
  if ((await leaseHolder(file))?.owner !== owner) return false;
  const t = new Date(now);
  await utimes(file, t, t).catch(() => {});
  return true;
}

/** Give the lease up when `owner` holds it. */
export async function releaseLease(file: string, owner: string): Promise<void> {
  if ((await leaseHolder(file))?.owner === owner) await unlink(file).catch(() => {});
}

export interface HeldLeaseOptions {
  /** The lease interval: a killed holder's lease is taken over within it (default 30 s). */
  leaseMs?: number;
  /** Called when this process takes the lease (true) or loses it (false). */
  onChange?: (held: boolean) => void;
  now?: () => number;
}

/**
 * A lease this process keeps trying to hold (a leader among the processes sharing a folder): it tries every quarter
 * of the lease, renews while it holds it, and reports each change. `stop()` releases it.
 */
export class HeldLease {
  readonly owner = randomUUID();
  readonly leaseMs: number;
  private timer: ReturnType<typeof setInterval> | undefined;
  private isHeld = false;
  private turn: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    readonly file: string,
    private readonly options: HeldLeaseOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 30_000;
  }

  get held(): boolean {
    return this.isHeld;
  }

  /** One attempt now (awaitable), then one every quarter of the lease. */
  start(): Promise<void> {
    if (!this.timer) {
      this.timer = setInterval(() => void this.tick(), Math.max(10, this.leaseMs / 4));
      this.timer.unref?.();
    }
    return this.tick();
  }

  /** Take or renew now; the turns never overlap. */
  tick(): Promise<void> {
    this.turn = this.turn.then(async () => {
      if (this.stopped) return;
      const now = (this.options.now ?? Date.now)();
      let held: boolean;
      try {
        held = this.isHeld ? await renewLease(this.file, this.owner, now) : await tryTakeLease(this.file, this.owner, this.leaseMs, now);
      } catch {
        held = false;
      }
      if (this.stopped || held === this.isHeld) return;
      this.isHeld = held;
      this.options.onChange?.(held);
    });
    return this.turn;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.turn;
    if (this.isHeld) await releaseLease(this.file, this.owner);
    this.isHeld = false;
  }
}

/**
 * Run `fn` holding the lock in `file` against every process sharing the folder (a read-modify-write of a ref): wait
 * for it (polling), renew it while `fn` runs, release it after. A lock a killed process left is taken over after
 * `leaseMs`.
 */
export async function withFileLock<T>(file: string, fn: () => Promise<T>, options: { leaseMs?: number; waitMs?: number } = {}): Promise<T> {
  const leaseMs = options.leaseMs ?? 30_000;
  const owner = randomUUID();
  const deadline = Date.now() + (options.waitMs ?? 120_000);
  let pause = 2;
  while (!(await tryTakeLease(file, owner, leaseMs))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for the lock ${path.basename(file)}`);
    await new Promise((r) => setTimeout(r, pause + Math.random() * pause));
    pause = Math.min(20, pause * 2);
  }
  const heartbeat = setInterval(() => void renewLease(file, owner), leaseMs / 4);
  heartbeat.unref?.();
  try {
    return await fn();
  } finally {
    clearInterval(heartbeat);
    await releaseLease(file, owner);
  }
}
