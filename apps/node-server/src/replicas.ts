import path from 'node:path';
import type { Logger, SourceProber } from '@hub/core-index';
import { HeldLease, type LeaseBody, leaseHolder, withFileLock } from '@hub/objects/node';

/**
 * Several `hub serve` processes on one data folder (issue 41): the leases they share, in `DIR/locks/`. A lease is
 * a file whose mtime its holder renews; a killed holder's lease is taken over within `leaseSeconds` (default 30).
 */
export const LOCKS_DIR = 'locks';
export const PROBE_LEASE = 'probe.lock';
export const REFRESH_LEASE = 'refresh.lock';
/** Held while an index build writes to the data folder (`hub index build`, or the refresh lease holder's build). */
export const BUILD_LOCK = 'build.lock';
export const DEFAULT_LEASE_SECONDS = 30;

export function leaseFile(dataDir: string, name: string): string {
  return path.join(dataDir, LOCKS_DIR, name);
}

export interface SharedProbes {
  /** Whether this process runs the probe rounds now. */
  readonly held: boolean;
  /** Start the rounds (when this process holds the lease, now or later); the host calls it once it listens. */
  begin(): void;
  stop(): Promise<void>;
}

/**
 * Probes once per round across the processes sharing a data folder: the holder of `locks/probe.lock` runs the rounds
 * (the prober's timer) and writes `probes.json`; every other process re-reads that file every `followSeconds`
 * (default 5, at most the probe interval), so all health answers agree within that. When the holder dies, another
 * process takes the lease within one lease interval, reads the last state and runs the rounds from there.
 */
export async function shareProbes(
  prober: SourceProber,
  dataDir: string,
  options: { leaseSeconds?: number; followSeconds?: number; log?: Logger },
): Promise<SharedProbes> {
  let follower: ReturnType<typeof setInterval> | undefined;
  let began = false;
  const lease = new HeldLease(leaseFile(dataDir, PROBE_LEASE), {
    leaseMs: (options.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000,
    onChange: (held) => {
      if (held) {
        options.log?.info({ lease: PROBE_LEASE }, 'this process runs the probe rounds');
        // The last rounds another process ran are the starting point.
        void prober.load().then(() => {
          if (lease.held && began) prober.start();
        });
      } else {
        options.log?.info({ lease: PROBE_LEASE }, 'another process runs the probe rounds; following probes.json');
        prober.pause();
      }
    },
  });
  await lease.start();
  const followMs = Math.max(100, Math.min(options.followSeconds ?? 5, prober.probeSettings().intervalSeconds) * 1000);
  follower = setInterval(() => {
    if (!lease.held) void prober.load().catch(() => {});
  }, followMs);
  follower.unref?.();
  return {
    get held() {
      return lease.held;
    },
    begin() {
      began = true;
      if (lease.held) prober.start();
    },
    async stop() {
      clearInterval(follower);
      follower = undefined;
      await lease.stop();
    },
  };
}

/**
 * Run an index build holding `locks/build.lock`, waiting (however long) for a build another process runs: two
 * builders would each read the archive and `current` and write them back, and one day would be lost.
 */
export async function withBuildLock<T>(dataDir: string, fn: () => Promise<T>, waiting?: (holder: LeaseBody) => void): Promise<T> {
  const file = leaseFile(dataDir, BUILD_LOCK);
  const holder = await leaseHolder(file);
  if (holder) waiting?.(holder);
  return withFileLock(file, fn, { waitMs: Number.POSITIVE_INFINITY });
}
