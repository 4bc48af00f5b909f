import { afterEach, describe, expect, it, vi } from 'vitest';
import { cutPieces, joinPieces, Probe } from './ranged-parts.js';
import type { Piece } from './ranges.js';

const MiB = 1 << 20;

describe('Probe: more connections only when they bring more bytes (fake clock)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A download whose rate is `one` bytes/ms with one connection and `many` once all are allowed. */
  function run(one: number, many: number, streamingAfterAll: number) {
    vi.useFakeTimers();
    let received = 0;
    let rate = one;
    const calls: string[] = [];
    const probe = new Probe(
      () => received,
      () => 1e12,
      () => 8,
      () => {
        calls.push('all');
        rate = many;
      },
      () => calls.push('back'),
    );
    const tick = setInterval(() => {
      received += rate * 10;
    }, 10);
    probe.start();
    vi.advanceTimersByTime(200);
    expect(calls).toEqual(['all']);
    for (let i = 0; i < streamingAfterAll; i++) probe.count(1);
    vi.advanceTimersByTime(4000);
    clearInterval(tick);
    return calls;
  }

  it('keeps all connections when they bring many times the bytes (a source limited per connection)', () => {
    expect(run(100, 800, 8)).toEqual(['all']);
  });

  it('goes back to one when they do not (one connection was not the limit)', () => {
    expect(run(100, 110, 8)).toEqual(['all', 'back']);
  });

  it('no probe when the rest of the file comes sooner than more connections could be judged', () => {
    vi.useFakeTimers();
    let received = 0;
    const calls: string[] = [];
    const probe = new Probe(
      () => received,
      () => 30_000,
      () => 8,
      () => calls.push('all'),
      () => calls.push('back'),
    );
    const tick = setInterval(() => {
      received += 1000;
    }, 10);
    probe.start();
    vi.advanceTimersByTime(2000);
    clearInterval(tick);
    expect(calls).toEqual([]);
  });

  it('judges only once the new connections stream, or after the settle time', () => {
    vi.useFakeTimers();
    let received = 0;
    let rate = 100;
    const calls: string[] = [];
    const probe = new Probe(
      () => received,
      () => 1e12,
      () => 4,
      () => {
        calls.push('all');
        rate = 100; // slow handshakes: nothing more yet
      },
      () => calls.push('back'),
    );
    const tick = setInterval(() => {
      received += rate * 10;
    }, 10);
    probe.start();
    vi.advanceTimersByTime(1000);
    // four connections streaming now, at four times the rate: judged from here, so they stay
    rate = 400;
    for (let i = 0; i < 4; i++) probe.count(1);
    vi.advanceTimersByTime(1000);
    clearInterval(tick);
    expect(calls).toEqual(['all']);
  });
});

describe('cutPieces and joinPieces', () => {
  it('cuts a busy piece where its bytes have got to (it keeps the first part) and joins free ones back', () => {
    const busy: Piece = { start: 0, end: 20 * MiB, pos: MiB, got: 2 * MiB, busy: true };
    const cut = cutPieces([busy], 4 * MiB);
    expect(cut.map((p) => [p.start / MiB, p.end / MiB, p.busy])).toEqual([
      [0, 6, true],
      [6, 10, false],
      [10, 14, false],
      [14, 18, false],
      [18, 20, false],
    ]);
    expect(cut[0]).toBe(busy);
    const joined = joinPieces(cut);
    expect(joined.map((p) => [p.start / MiB, p.end / MiB])).toEqual([
      [0, 6],
      [6, 20],
    ]);
  });
});
