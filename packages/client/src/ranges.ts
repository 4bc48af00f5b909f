/**
 * The pure parts of a ranged download (issue 42): the sources a resolve redirect lists (`Link: rel="duplicate"`,
 * RFC 6249), the byte intervals a file is held in, how it is cut into pieces, and the record of completed ranges kept
 * beside a temp file so an interrupted download continues from it. No I/O here.
 */

/** Bytes `[start, end)` of a file. */
export type Interval = [start: number, end: number];

/** One source of a file's bytes, as the hub lists it on the resolve redirect. */
export interface Duplicate {
  /** the hub's health key of the source (`hub-source` on the Link), else the URL's host */
  source: string;
  url: string;
}

/** At most this many sources are taken from one Link header. */
const MAX_DUPLICATES = 16;

/**
 * The `rel="duplicate"` links of a `Link` header value (RFC 8288 syntax, RFC 6249 meaning) in `pri` order (then header
 * order): absolute http(s) URLs only, each URL once. `base` resolves a relative reference.
 */
export function parseDuplicates(link: string | null | undefined, base: string): Duplicate[] {
  if (!link) return [];
  const found: Array<Duplicate & { pri: number; at: number }> = [];
  let i = 0;
  while (i < link.length && found.length < MAX_DUPLICATES) {
    const open = link.indexOf('<', i);
    if (open < 0) break;
    const close = link.indexOf('>', open);
    if (close < 0) break;
    const target = link.slice(open + 1, close);
    // the parameters run to the next comma outside a quoted string
    let j = close + 1;
    let quoted = false;
    for (; j < link.length; j++) {
      const c = link[j];
      if (c === '"' && link[j - 1] !== '\\') quoted = !quoted;
      else if (c === ',' && !quoted) break;
    }
    const params = linkParams(link.slice(close + 1, j));
    i = j + 1;
    if (!(params.get('rel') ?? '').toLowerCase().split(/\s+/).includes('duplicate')) continue;
    let url: URL;
    try {
      url = new URL(target, base);
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    if (found.some((d) => d.url === url.href)) continue;
    const pri = Number(params.get('pri'));
    const named = params.get('hub-source') ?? '';
    found.push({
      source: printable(named) ? named : url.host,
      url: url.href,
      pri: Number.isInteger(pri) && pri > 0 ? pri : Number.MAX_SAFE_INTEGER,
      at: found.length,
    });
  }
  found.sort((a, b) => a.pri - b.pri || a.at - b.at);
  return found.map(({ source, url }) => ({ source, url }));
}

/** `; name=value; name="quoted"` as a map of lower-case names (the first of a repeated name wins, as RFC 8288 says). */
function linkParams(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const re = /;\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*(?:=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;,"]*)))?/g;
  for (const m of text.matchAll(re)) {
    const name = (m[1] ?? '').toLowerCase();
    if (!out.has(name)) out.set(name, m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? ''));
  }
  return out;
}

/** A source name fit for a terminal and a log line: printable ASCII, not empty, not long. */
function printable(s: string): boolean {
  return s.length > 0 && s.length <= 100 && /^[\x21-\x7e]+$/.test(s);
}

/** `list` with `iv` added, sorted and merged (touching intervals join). */
export function addInterval(list: readonly Interval[], iv: Interval): Interval[] {
  if (iv[1] <= iv[0]) return [...list];
  const all = [...list, iv].sort((a, b) => a[0] - b[0]);
  const out: Interval[] = [];
  for (const [s, e] of all) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** The parts of `[0, size)` not in `held` (sorted, merged intervals). */
export function gaps(held: readonly Interval[], size: number): Interval[] {
  const out: Interval[] = [];
  let at = 0;
  for (const [s, e] of held) {
    if (s > at) out.push([at, Math.min(s, size)]);
    at = Math.max(at, e);
  }
  if (at < size) out.push([at, size]);
  return out.filter(([s, e]) => e > s);
}

/** Pieces are never smaller than this (a request's cost is not worth less), except a file's last piece. */
const MIN_PIECE_BYTES = 1 << 20;
/** nor larger than this (the resume record and the in-order hashing follow pieces) */
const MAX_PIECE_BYTES = 32 << 20;

/**
 * The piece size for a file fetched over `workers` connections in all: about four pieces per connection (so the
 * connections end together and the hash, which follows the completed prefix, trails the download by a few pieces),
 * a multiple of 64 KiB, between 1 and 32 MiB.
 */
export function pieceBytes(size: number, workers: number): number {
  const raw = Math.ceil(size / Math.max(1, workers * 4));
  const aligned = Math.ceil(raw / 65536) * 65536;
  return Math.min(MAX_PIECE_BYTES, Math.max(MIN_PIECE_BYTES, aligned));
}

/** The record beside a temp file: which bytes of which file it already holds. */
export interface RangeRecord {
  format: 'hub-ranges/1';
  sha256: string;
  size: number;
  done: Interval[];
}

/**
 * The completed intervals of a record read back, when it is for this very file (same SHA-256 and size) and sound
 * (sorted, inside the file); anything else is no record at all (the download starts over).
 */
export function parseRangeRecord(text: string, file: { sha256: string; size: number }): Interval[] | undefined {
  let r: Partial<RangeRecord>;
  try {
    r = JSON.parse(text) as Partial<RangeRecord>;
  } catch {
    return undefined;
  }
  if (r?.format !== 'hub-ranges/1' || r.sha256 !== file.sha256 || r.size !== file.size || !Array.isArray(r.done)) return undefined;
  let at = 0;
  const out: Interval[] = [];
  for (const iv of r.done) {
    if (!Array.isArray(iv) || iv.length !== 2) return undefined;
    const [s, e] = iv as unknown[];
    if (!Number.isSafeInteger(s) || !Number.isSafeInteger(e)) return undefined;
    const [a, b] = [s as number, e as number];
    if (a < at || b <= a || b > file.size) return undefined;
    out.push([a, b]);
    at = b;
  }
  return out;
}

/** A record for `file` holding `done`. */
export function rangeRecord(file: { sha256: string; size: number }, done: readonly Interval[]): RangeRecord {
  return { format: 'hub-ranges/1', sha256: file.sha256, size: file.size, done: done.map(([s, e]) => [s, e]) };
}

/** Who wrote bytes `[start, end)` last. */
export interface Served {
  start: number;
  end: number;
  source: string;
}

/** Who wrote each byte last: `served` painted in order, as non-overlapping intervals. */
export function paint(served: readonly Served[], size: number): Served[] {
  let out: Served[] = [];
  for (const s of served) {
    const next: Served[] = [];
    for (const o of out) {
      if (o.end <= s.start || o.start >= s.end) next.push(o);
      else {
        if (o.start < s.start) next.push({ ...o, end: s.start });
        if (o.end > s.end) next.push({ ...o, start: s.end });
      }
    }
    next.push({ start: s.start, end: Math.min(s.end, size), source: s.source });
    out = next.sort((a, b) => a.start - b.start);
  }
  return out;
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'source';
  }
}

/** A part of a file one request fetches. */
export interface Piece {
  start: number;
  /** exclusive; moves down when an idle connection takes the rest */
  end: number;
  /** bytes `[start, pos)` are written */
  pos: number;
  /** bytes `[start, got)` arrived (written or on their way to the file) */
  got: number;
  busy: boolean;
}

/**
 * The piece a free connection fetches next: the first free one in file order; else the second half of the busy piece
 * with the most left (at least `splitMin`), split off at a 64 KiB boundary; `wait` while others still work.
 */
export function takePiece(pieces: Piece[], splitMin: number): Piece | 'wait' | undefined {
  const free = pieces.find((p) => !p.busy && p.pos < p.end);
  if (free) {
    free.busy = true;
    return free;
  }
  let best: Piece | undefined;
  for (const p of pieces) if (p.busy && p.end - p.got >= splitMin && (!best || p.end - p.got > best.end - best.got)) best = p;
  if (best) {
    const mid = best.got + Math.floor((best.end - best.got) / 2 / 65536) * 65536;
    const rest: Piece = { start: mid, end: best.end, pos: mid, got: mid, busy: true };
    best.end = mid;
    pieces.splice(pieces.indexOf(best) + 1, 0, rest);
    return rest;
  }
  return pieces.some((p) => p.busy) ? 'wait' : undefined;
}
