import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HeldLease, leaseHolder, tryTakeLease, withFileLock } from './file-lease.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function fresh(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'hub-lease-'));
  dirs.push(d);
  return d;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('file leases (issue 41)', () => {
  it('gives a lease to exactly one of twenty takers at once', async () => {
    const file = path.join(fresh(), 'locks', 'one.lock');
    const won = await Promise.all(Array.from({ length: 20 }, (_, i) => tryTakeLease(file, `owner-${i}`, 10_000)));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect((await leaseHolder(file))?.owner).toBe(`owner-${won.indexOf(true)}`);
  });

  it('takes over a lease whose holder stopped renewing it (killed), once, after three quarters of the lease', async () => {
    const file = path.join(fresh(), 'dead.lock');
    await writeFile(file, JSON.stringify({ owner: 'killed', pid: 999999, host: 'elsewhere', since: new Date().toISOString() }));
    const now = Date.now();
    // Renewed 0.5 s ago, lease 1 s: still fresh.
    await utimes(file, new Date(now - 500), new Date(now - 500));
    expect(await tryTakeLease(file, 'taker', 1000, now)).toBe(false);
    // Last renewed 0.8 s ago: stale; of ten takers at once, one wins.
    await utimes(file, new Date(now - 800), new Date(now - 800));
    const won = await Promise.all(Array.from({ length: 10 }, (_, i) => tryTakeLease(file, `taker-${i}`, 1000, now)));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect((await leaseHolder(file))?.owner).toMatch(/^taker-/);
  });

  it('moves a held lease to the waiting process within one lease interval of the holder going silent', async () => {
    const file = path.join(fresh(), 'leader.lock');
    const events: string[] = [];
    const first = new HeldLease(file, { leaseMs: 400, onChange: (h) => events.push(`first ${h}`) });
    const second = new HeldLease(file, { leaseMs: 400, onChange: (h) => events.push(`second ${h}`) });
    await first.start();
    await second.start();
    await sleep(600);
    expect([first.held, second.held]).toEqual([true, false]);
    // The holder freezes (as a killed process would): no renewals, no release.
    (first as unknown as { stopped: boolean }).stopped = true;
    const silentAt = Date.now();
    while (!second.held && Date.now() - silentAt < 2000) await sleep(10);
    expect(second.held).toBe(true);
    // Stale 300 ms after its last renewal, tried every 100 ms: within the 400 ms lease (plus a busy machine's scheduling).
    expect(Date.now() - silentAt).toBeLessThanOrEqual(400 + 300);
    expect(events).toEqual(['first true', 'second true']);
    await second.stop();
    expect(await leaseHolder(file)).toBeUndefined();
  });

  it('lets no two read-modify-writes under one file lock interleave', async () => {
    const dir = fresh();
    const counter = path.join(dir, 'counter');
    await writeFile(counter, '0');
    await Promise.all(
      Array.from({ length: 30 }, () =>
        withFileLock(path.join(dir, 'counter.lock'), async () => {
          const n = Number(await readFile(counter, 'utf8'));
          await sleep(Math.random() * 5);
          await writeFile(counter, String(n + 1));
        }),
      ),
    );
    expect(await readFile(counter, 'utf8')).toBe('30');
  });
});
