/**
 * Parts of the ranged download (`ranged.ts`): a source as the download sees it, how an attempt ends, and how pieces
 * are cut for several connections or joined again for one. Pure: no I/O.
 */
import { type Duplicate, hostOf, type Piece, parseDuplicates } from './ranges.js';
import type { ByteResponse, Outcome } from './types.js';

export interface Source extends Duplicate {
  dropped: boolean;
  cuts: number;
  /** bytes written from this source (of this file) */
  bytes: number;
}

/** A write to the file failed: not the source's fault, so the whole download stops with it. */
export class LocalFailure extends Error {
  constructor(override readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** How one request ended, when it did not end well. */
export class RangeEnd extends Error {
  constructor(
    readonly outcome: Outcome,
    reason: string,
  ) {
    super(reason);
  }
}

export const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+|\*)$/;

/**
 * Every piece with more than 1.5 × `size` left cut into pieces of `size` (64 KiB multiples) from where its bytes have
 * got to; a busy piece keeps the first of them (its end moves down: its connection stops there), the rest are free.
 */
export function cutPieces(pieces: readonly Piece[], size: number): Piece[] {
  const out: Piece[] = [];
  for (const p of pieces) {
    out.push(p);
    if (p.end - p.got <= size * 1.5) continue;
    const end = p.end;
    p.end = Math.min(end, Math.ceil((p.got + size) / 65536) * 65536);
    for (let a = p.end; a < end; a += size) out.push({ start: a, end: Math.min(end, a + size), pos: a, got: a, busy: false });
  }
  return out;
}

/** Free pieces joined to the free piece before them when nothing of them is written yet (one connection: one request). */
export function joinPieces(pieces: readonly Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const p of pieces) {
    const last = out[out.length - 1];
    if (last && !last.busy && !p.busy && last.end === p.start && p.pos === p.start) last.end = p.end;
    else out.push(p);
  }
  return out;
}

/**
 * The sources of a file from the answer to the hub's resolve (its `Link` list, in its order) and the one that answered.
 * Only the hub's list is taken (a source's own `Link` header is not: the hub vets its sources).
 */
export function sourcesOf(r: Pick<ByteResponse, 'hubLinks' | 'hubSource' | 'url'>): [Source[], Source] {
  const links = parseDuplicates(r.hubLinks, r.url);
  const served = r.hubSource ?? links.find((l) => l.url === r.url)?.source ?? hostOf(r.url);
  const list = links.some((l) => l.source === served) ? links : [{ source: served, url: r.url }, ...links];
  const sources = list.map((d) => ({ ...d, dropped: false, cuts: 0, bytes: 0 }));
  return [sources, sources.find((x) => x.source === served) as Source];
}

/** How a request ended that threw `e`: its own {@link RangeEnd}, the stall that aborted it, else a cut or an error. */
export function endOf(e: unknown, signal: AbortSignal, progressed: boolean): RangeEnd {
  if (e instanceof RangeEnd) return e;
  if (signal.reason instanceof RangeEnd) return signal.reason;
  return new RangeEnd(progressed ? 'cut' : 'error', e instanceof Error ? e.message : String(e));
}

/** One connection per source works this long before all do; all are then judged over as long. */
const PROBE_MS = 200;
/** All connections stay when they brought this many times the bytes of one. */
const PROBE_GAIN = 1.3;
/** The judging window starts once the new connections stream, or after this long (slow handshakes, few pieces). */
const SETTLE_MS = 3000;

/**
 * Whether more connections help: one per source for {@link PROBE_MS}, then all (`all`); once they stream (or after
 * {@link SETTLE_MS}), their bytes over {@link PROBE_MS} against the first window's; below {@link PROBE_GAIN} times as
 * many, one per source again (`back`). A source limited per connection (a CDN edge, a far server, `limit_rate`) gains
 * about N times; loopback or a fast LAN, where one connection is not the limit, does not.
 */
export class Probe {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private streaming = 0;

  constructor(
    private readonly bytes: () => number,
    /** bytes still to come */
    private readonly left: () => number,
    /** how many connections stream when all do */
    private readonly wanted: () => number,
    private readonly all: () => void,
    private readonly back: () => void,
  ) {}

  /** The first connection streams: the first window starts. */
  start(): void {
    const b0 = this.bytes();
    const t0 = Date.now();
    this.later(PROBE_MS, () => {
      const one = (this.bytes() - b0) / Math.max(1, Date.now() - t0);
      // at this rate the rest comes before more connections could be judged: no probe
      if (this.left() < one * PROBE_MS * 2) return;
      this.all();
      const settle = Date.now();
      const judge = () => {
        if (this.streaming < this.wanted() && Date.now() - settle < SETTLE_MS) return this.later(PROBE_MS / 4, judge);
        const b1 = this.bytes();
        const t1 = Date.now();
        this.later(PROBE_MS, () => {
          if ((this.bytes() - b1) / Math.max(1, Date.now() - t1) < one * PROBE_GAIN) this.back();
        });
      };
      judge();
    });
  }

  /** A connection got its first bytes (`+1`) or ended (`-1`). */
  count(n: 1 | -1): void {
    this.streaming += n;
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private later(ms: number, f: () => void): void {
    this.timer = setTimeout(f, ms);
    this.timer.unref?.();
  }
}
