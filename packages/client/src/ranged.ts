/**
 * A ranged download (issue 42): one file in pieces over several connections to each of several sources at once, written
 * in place into a {@link RangeTarget} and hashed in order as the completed prefix grows. The hub lists every live source
 * on its resolve redirect (`Link: rel="duplicate"`); the first piece is asked of the hub, so one request starts the
 * bytes and learns the sources. A source that fails, or whose range does not add up (not 206, another Content-Range,
 * too few bytes), is dropped for the rest of the file and its pieces go to the others. The whole file's SHA-256
 * decides; on a mismatch it is checked from one source at a time (the bytes others served fetched again from it and
 * compared), so the source whose bytes differ is named. Runtime-neutral: transport, hashing and file are injected.
 */
import { PieceWriter } from './piece-writer.js';
import { CONTENT_RANGE, cutPieces, endOf, joinPieces, LocalFailure, Probe, RangeEnd, type Source, sourcesOf } from './ranged-parts.js';
import { addInterval, gaps, type Interval, type Piece, paint, pieceBytes, type Served, sameBytes, takePiece } from './ranges.js';
import type { Attempt, ByteResponse, ClientOptions, FileResult, GetBytes, Outcome, RangeTarget, RemoteFile } from './types.js';

/** A file this large or larger is fetched in ranges when a {@link RangeTarget} is given. */
export const RANGED_MIN_BYTES = 16 << 20;
/** Connections per source unless `ClientOptions.connections` says otherwise. */
export const DEFAULT_CONNECTIONS = 8;
/** A cut connection is tried again on the same source this many times before the source is dropped. */
const CUTS_PER_SOURCE = 3;
/** An idle connection takes half of a busy piece with at least this much left (the slow tail of a file). */
const SPLIT_MIN_BYTES = 4 << 20;
/** The hash is told of the completed prefix when it grew by this much. */
const HASH_STEP_BYTES = 1 << 20;
/** The record of completed ranges is written at most this often (and at the end). */
const RECORD_EVERY_MS = 250;
/** The source of bytes kept from an interrupted run. */
const RESUMED = 'earlier run';

/** Download `file` into `target` in ranges; `resolveUrl` is the hub's `/resolve/` URL of the file. */
export function downloadRanged(
  opts: ClientOptions,
  getBytes: GetBytes,
  resolveUrl: string,
  file: RemoteFile,
  target: RangeTarget,
): Promise<FileResult> {
  return new Ranged(opts, getBytes, file, target).run(resolveUrl);
}

class Ranged {
  private pieces: Piece[] = [];
  private readonly served: Served[] = [];
  private sources: Source[] = [];
  private readonly attempts: Attempt[] = [];
  private received = 0;
  private hashed = 0;
  private first = 0;
  private waiting: Array<() => void> = [];
  /** a check round: each slice is compared with what the file holds before it is written */
  private compare: Map<string, Interval[]> | undefined;
  private paused = false;
  private recording: Promise<void> = Promise.resolve();
  /** free write batches, shared by the connections */
  private readonly pool: Uint8Array[] = [];
  private lastRecord = 0;
  private discarded = false;
  private readonly conns: number;
  private readonly stallMs: number;
  /** connections per source at work now (see {@link Probe}) */
  private allowed = 1;
  private readonly probe = new Probe(
    () => this.received,
    () => this.file.size - this.received,
    () => this.conns * this.sources.filter((s) => !s.dropped).length,
    () => {
      this.allowed = this.conns;
      this.cut();
      this.changed();
    },
    () => {
      // one connection per source again; one source's rest of the file in one request
      this.allowed = 1;
      if (this.sources.length === 1) this.pieces = joinPieces(this.pieces);
      this.first = 0;
    },
  );

  constructor(
    private readonly opts: ClientOptions,
    private readonly getBytes: GetBytes,
    private readonly file: RemoteFile,
    private readonly target: RangeTarget,
  ) {
    this.conns = Math.max(1, opts.connections ?? DEFAULT_CONNECTIONS);
    this.stallMs = (opts.stallSeconds ?? 30) * 1000;
  }

  async run(resolveUrl: string): Promise<FileResult> {
    let held: Interval[] = [];
    for (const [s, e] of this.target.held) held = addInterval(held, [s, e]);
    if (held.length > 0) this.served.push(...held.map(([start, end]) => ({ start, end, source: RESUMED })));
    this.plan(held, gaps(held, this.file.size));
    if (gaps(held, this.file.size).length === 0) {
      // every byte was kept by an earlier run: only the hash is left
      if ((await this.digest()) === this.file.sha256) return this.result(true);
      this.served.length = 0;
      this.plan([], [[0, this.file.size]]);
    }
    const piece = this.take();
    if (!piece || piece === 'wait') return this.result(false);
    // The first piece is asked of the hub: its redirect names the source, its Link header every live source. The other
    // sources' connections start then; the first source's once its answer is a good range, and the first goes on as
    // one of them.
    const hub: Source = { source: 'hub', url: resolveUrl, dropped: false, cuts: 0, bytes: 0 };
    const started: Array<Promise<void>> = [];
    const firstSource = await this.fetchPiece(hub, piece, {
      opened: (r) => {
        let first: Source;
        [this.sources, first] = sourcesOf(r);
        if (this.sources.length > 1) this.cut();
        started.push(this.workers(this.sources.filter((x) => x !== first)));
        return first;
      },
      ranged: (first) => {
        started.push(this.workers([first], first));
        this.probe.start();
      },
    });
    await Promise.all([...started, firstSource === hub ? undefined : this.worker(firstSource, 0)]);
    if (!this.complete()) return this.result(false);
    let actual = await this.digest();
    if (actual === this.file.sha256) return this.result(true);
    // Mismatch: check the file from one source at a time, in the hub's order.
    const tried = new Set<string>();
    for (;;) {
      const v = this.sources.find((s) => !s.dropped && !tried.has(s.source));
      if (!v) break;
      tried.add(v.source);
      const owners = paint(this.served, this.file.size);
      const mine = owners.filter((o) => o.source === v.source).map((o): Interval => [o.start, o.end]);
      let redo = gaps(mine, this.file.size);
      if (redo.length === 0) redo = [[0, this.file.size]];
      this.probe.stop();
      this.allowed = this.conns;
      this.plan(gaps(redo, this.file.size), redo);
      this.compare = new Map();
      this.paused = true;
      await this.workers([v]);
      const differing = this.compare;
      this.compare = undefined;
      this.paused = false;
      if (!this.complete()) continue;
      actual = await this.digest();
      if (actual === this.file.sha256) {
        for (const [name, ivs] of differing) {
          const s = this.sources.find((x) => x.source === name);
          if (s) s.dropped = true;
          const where = ivs.map(([a, b]) => `${a}-${b - 1}`).join(', ');
          this.report(
            s ?? { source: name, url: '', dropped: true, cuts: 0, bytes: 0 },
            0,
            ivs[0]?.[0] ?? 0,
            'mismatch',
            `bytes ${where} differ from ${v.source}'s, with which the file verified`,
          );
        }
        return this.result(true);
      }
      v.dropped = true;
      this.report(v, v.bytes, 0, 'mismatch', `every byte from ${v.source}: sha256 ${actual}, expected ${this.file.sha256}`);
    }
    this.discarded = true;
    await this.recording;
    await this.target.discard();
    return this.result(false);
  }

  /** Pieces: `done` intervals complete, `todo` cut into pieces; ordered by offset. The hash starts over. */
  private plan(done: Interval[], todo: Interval[]): void {
    this.target.rehash();
    this.hashed = 0;
    const pieces: Piece[] = done.map(([start, end]) => ({ start, end, pos: end, got: end, busy: false }));
    for (const [start, end] of todo) pieces.push({ start, end, pos: start, got: start, busy: false });
    this.pieces = pieces.sort((a, b) => a.start - b.start);
    this.first = 0;
    this.received = done.reduce((n, [s, e]) => n + e - s, 0);
    if (this.allowed > 1 || this.sources.length > 1) this.cut();
  }

  /** Pieces for several connections: about four per connection in all. */
  private cut(): void {
    this.pieces = cutPieces(this.pieces, pieceBytes(this.file.size, this.conns * Math.max(1, this.sources.length)));
    this.first = 0;
  }

  private complete(): boolean {
    return this.pieces.every((p) => p.pos >= p.end);
  }

  private async digest(): Promise<string> {
    this.advance(true);
    return this.target.digest();
  }

  /** A piece to fetch (see {@link takePiece}). */
  private take(): Piece | 'wait' | undefined {
    return takePiece(this.pieces, SPLIT_MIN_BYTES);
  }

  private changed(): void {
    const w = this.waiting;
    this.waiting = [];
    for (const f of w) f();
  }

  /** `conns` connections to each source (one fewer to `running`, whose first connection is already at work). */
  private async workers(sources: Source[], running?: Source): Promise<void> {
    const all: Array<Promise<void>> = [];
    for (const s of sources) for (let i = s === running ? 1 : 0; i < this.conns; i++) all.push(this.worker(s, i));
    await Promise.all(all);
  }

  /** Connection `i` of source `s`: it works while `i` is below the connections now allowed per source. */
  private async worker(s: Source, i: number): Promise<void> {
    for (;;) {
      if (s.dropped || (i >= this.allowed && this.complete())) return;
      const piece = i < this.allowed ? this.take() : 'wait';
      if (piece === 'wait') {
        await new Promise<void>((r) => this.waiting.push(r));
        continue;
      }
      if (!piece) return;
      await this.fetchPiece(s, piece);
    }
  }

  /**
   * One request for the rest of `piece` from `s`; returns the source the bytes came from (`first.opened` may name
   * another: the hub's redirect; `first.ranged` is told when that source answered with the range asked for). A failure is reported and the piece freed for any connection; the source is dropped unless
   * the connection was only cut (a few times).
   */
  private async fetchPiece(
    from0: Source,
    piece: Piece,
    first?: { opened(r: ByteResponse): Source; ranged(s: Source): void },
  ): Promise<Source> {
    let s = from0;
    const from = piece.pos;
    const last = piece.end - 1;
    const ctrl = new AbortController();
    let lastByte = Date.now();
    const timer = setInterval(
      () => {
        if (Date.now() - lastByte >= this.stallMs) ctrl.abort(new RangeEnd('stall', `no byte for ${this.stallMs / 1000} s`));
      },
      Math.max(10, Math.min(1000, this.stallMs / 5)),
    );
    let r: ByteResponse | undefined;
    let writer: PieceWriter | undefined;
    let streaming: 0 | 1 = 0;
    try {
      r = await this.getBytes(s.url, { headers: { range: `bytes=${from}-${last}` }, signal: ctrl.signal });
      // the hub's redirect was followed (or a range answered): the sources are known
      if (first && (r.redirected || r.status === 206)) s = first.opened(r);
      if (r.status !== 206) {
        throw new RangeEnd(
          'status',
          r.status === 200 ? 'HTTP 200 to a Range request (the whole file instead of the range)' : `HTTP ${r.status}`,
        );
      }
      const cr = CONTENT_RANGE.exec(r.headers.get('content-range') ?? '');
      if (!cr || Number(cr[1]) !== from || Number(cr[2]) !== last || (cr[3] !== '*' && Number(cr[3]) !== this.file.size)) {
        throw new RangeEnd(
          'size',
          `Content-Range ${r.headers.get('content-range') ?? '(none)'} for bytes=${from}-${last} of ${this.file.size}`,
        );
      }
      if (first && s !== from0) first.ranged(s);
      writer = new PieceWriter(this.pool, from, (at, bytes) => this.wrote(s, piece, at, bytes));
      for await (const chunk of r.body) {
        lastByte = Date.now();
        if (!streaming) {
          streaming = 1;
          this.probe.count(1);
        }
        // the piece's end may have moved down (an idle connection took the rest): the bytes after it are not kept
        const n = Math.min(chunk.byteLength, piece.end - piece.got);
        piece.got += n;
        await writer.put(n === chunk.byteLength ? chunk : chunk.subarray(0, n));
        if (piece.got >= piece.end) break;
      }
      const w = writer;
      writer = undefined;
      await w.close();
      if (piece.pos < piece.end) throw new RangeEnd('cut', `the answer to bytes=${from}-${last} ended at byte ${piece.pos}`);
    } catch (e) {
      // what arrived before the failure is still written (it is checked with the rest)
      const closed = writer
        ? await writer.close().then(
            () => undefined,
            (x: unknown) => x,
          )
        : undefined;
      if (e instanceof LocalFailure) throw e.cause;
      if (closed instanceof LocalFailure) throw closed.cause;
      const end = endOf(e, ctrl.signal, piece.pos > from);
      this.report(s, piece.pos - from, from, end.outcome, end.message);
      if (!(end.outcome === 'cut' && ++s.cuts <= CUTS_PER_SOURCE)) s.dropped = true;
    } finally {
      if (streaming) this.probe.count(-1);
      clearInterval(timer);
      r?.cancel();
      piece.got = piece.pos;
      if (piece.pos > from) this.served.push({ start: from, end: piece.pos, source: s.source });
      piece.busy = false;
      this.changed();
      // (at most every 250 ms: once complete, the file is verified and renamed, or its last record written then)
      this.saveRecord(false);
    }
    return s;
  }

  /** One batch written: compared first in a check round, written in place, counted, the hash moved on. */
  private async wrote(s: Source, piece: Piece, at: number, bytes: Uint8Array): Promise<void> {
    try {
      if (this.compare) {
        const had = await this.target.read(at, bytes.byteLength);
        if (!sameBytes(had, bytes)) {
          const owner = paint(this.served, this.file.size).find((o) => o.start <= at && at < o.end)?.source ?? RESUMED;
          this.compare.set(owner, addInterval(this.compare.get(owner) ?? [], [at, at + bytes.byteLength]));
        }
      }
      await this.target.write(at, bytes);
    } catch (e) {
      // the file, not the source, failed: the download stops
      throw new LocalFailure(e);
    }
    piece.pos = at + bytes.byteLength;
    s.bytes += bytes.byteLength;
    this.received += bytes.byteLength;
    this.advance(false);
    this.opts.onProgress?.({
      file: this.file.path,
      source: s.source,
      received: this.received,
      size: this.file.size,
      sources: this.bySource(),
    });
  }

  /** Tell the hash how far the completed prefix reaches (every step, or now). */
  private advance(now: boolean): void {
    if (this.paused) return;
    while (this.first < this.pieces.length && (this.pieces[this.first] as Piece).pos >= (this.pieces[this.first] as Piece).end)
      this.first++;
    const frontier = this.first < this.pieces.length ? (this.pieces[this.first] as Piece).pos : this.file.size;
    if (frontier > this.hashed && (now || frontier - this.hashed >= HASH_STEP_BYTES || frontier === this.file.size)) {
      this.target.hashTo(frontier);
      this.hashed = frontier;
    }
  }

  /** The completed intervals, beside the temp file: at most every 250 ms, and always at the end. */
  private saveRecord(force: boolean): void {
    const t = Date.now();
    if (this.discarded) return;
    if (!force && t - this.lastRecord < RECORD_EVERY_MS) return;
    this.lastRecord = t;
    let done: Interval[] = [];
    for (const p of this.pieces) if (p.pos > p.start) done = addInterval(done, [p.start, p.pos]);
    this.recording = this.recording.then(() => this.target.record(done)).catch(() => {});
  }

  private bySource(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const s of this.sources) if (s.bytes > 0) out[s.source] = s.bytes;
    return out;
  }

  private report(s: Source, bytes: number, offset: number, outcome: Outcome, reason: string): void {
    const a: Attempt = { file: this.file.path, source: s.source, url: s.url, bytes, offset, outcome, reason };
    this.attempts.push(a);
    this.opts.onAttempt?.(a);
  }

  private async result(ok: boolean): Promise<FileResult> {
    this.probe.stop();
    // a verified file is renamed next (and its record removed): only a file kept to resume needs its last record
    if (!ok) this.saveRecord(true);
    await this.recording;
    const sources = this.bySource();
    let source: string | undefined;
    for (const [name, n] of Object.entries(sources)) if (!source || n > (sources[source] ?? 0)) source = name;
    if (ok) {
      source ??= RESUMED;
      for (const s of this.sources.filter((x) => x.bytes > 0 && !x.dropped)) {
        this.report(s, s.bytes, 0, 'verified', `sha256 ${this.file.sha256} (ranges over ${this.conns} connections)`);
      }
    }
    return { file: this.file, ok, ...(ok && source ? { source, sources } : {}), attempts: this.attempts };
  }
}
