import { createHash, type Hash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { GgufFacts } from '@hub/core-index';
import { syncDir } from '@hub/objects/node';
import type { FileStamp } from './hash-file.js';

/**
 * The rebuild cache of `hub index build --from-dir` (a file in the data folder, `cache/from-dir.json`): for each model
 * folder of the tree, in the order the build walks them, its files as the last build hashed them (each file's stamp:
 * size, modification and change times in nanoseconds, inode, device; its SHA-256 and GGUF header facts) and its facts
 * file. A file whose stamp is unchanged is not read again; any difference re-hashes it. Files changed within
 * {@link RACY_MS} of being read keep no hash, so a write in the same clock tick as the read cannot leave a stale one.
 * With a change feed (`hub index build --changed`), the folders the feed does not name are taken as the cache lists
 * them, without a walk.
 *
 * One JSON line a model folder, read and written as a stream beside the walk (both in walk order: a merge, not a
 * map), so a build holds one batch of folders, whatever the tree's size, and no string as long as the file (V8's
 * strings end at 512 MiB: a single JSON document of a tree of a few million files could not be read or written).
 * The first line names the format, the second the tree's root, the last the number of folders and the SHA-256 of the
 * lines between; a cache that does not match it, or was made for another root, is ignored (everything is hashed).
 * A cache of the first format (one JSON document, `v1`) is read whole, so an upgrade re-hashes nothing; it has no
 * listings, so a change feed waits for a build without it.
 */

const FORMAT_V1 = 'hub.from-dir-cache/v1';
const FORMAT = 'hub.from-dir-cache/v2';

/** Entries changed this close to their read are not kept (timestamps are coarse; git calls such entries racy). */
const RACY_MS = 2000;

/** What a model folder's `.hub-facts.json` says (from-dir.ts reads it). */
export interface FolderFacts {
  license?: string;
  pipeline_tag?: string;
  library_name?: string;
  tags?: string[];
}

/** A file as a build saw it: its path under the folder, size, stamp, SHA-256, GGUF facts; the path alone: no hash kept. */
export type CachedRow = [rel: string, size: number, stamp: string, sha256: string, gguf: GgufFacts | null] | [rel: string];

/** A model folder as a build saw it: its id (`owner/name`), its files in walk order, its facts file. */
export type CachedModel = [id: string, rows: CachedRow[], facts: FolderFacts | null];

/** A hashed file of a row: what a build needs of it without reading the file. */
export interface CachedFile {
  size: number;
  sha256: string;
  gguf: GgufFacts | null;
}

/** A file's stamp as one string (the cache compares stamps, never reads their parts). */
export const stampKey = (s: FileStamp): string => `${s.mtimeNs}:${s.ctimeNs}:${s.ino}:${s.dev}`;

/** The row of a file hashed now, or its path alone when it changed too close to its read (`readAtMs`). */
export function hashedRow(rel: string, stamp: FileStamp, sha256: string, gguf: GgufFacts | null, readAtMs: number): CachedRow {
  return stamp.changedMs > readAtMs - RACY_MS ? [rel] : [rel, stamp.size, stampKey(stamp), sha256, gguf];
}

/** The file of a row when its stamp is `stamp` (undefined: hash it again). */
export function rowFile(row: CachedRow | undefined, stamp: string): CachedFile | undefined {
  return row && row.length === 5 && row[2] === stamp ? { size: row[1], sha256: row[3], gguf: row[4] } : undefined;
}

/** A folder's rows by path, as a walk looks its files up. */
export function rowsOf(model: CachedModel): (rel: string) => CachedRow | undefined {
  const rows = new Map(model[1].map((r) => [r[0], r]));
  return (rel) => rows.get(rel);
}

/** Every row of a folder with its hash, or undefined when one has none (then the folder is walked again). */
export function wholeRows(model: CachedModel): Array<CachedFile & { path: string }> | undefined {
  const out: Array<CachedFile & { path: string }> = [];
  for (const row of model[1]) {
    if (row.length !== 5) return undefined;
    out.push({ path: row[0], size: row[1], sha256: row[3], gguf: row[4] });
  }
  return out;
}

/** Lines of a file read forward in chunks (never the whole file at once). */
class Lines {
  private readonly buf = Buffer.allocUnsafe(1 << 20);
  private rest: Buffer = Buffer.alloc(0);
  private atEnd = false;

  constructor(private readonly fd: number) {}

  next(): Buffer | undefined {
    for (;;) {
      const nl = this.rest.indexOf(10);
      if (nl !== -1) {
        const line = this.rest.subarray(0, nl);
        this.rest = this.rest.subarray(nl + 1);
        return line;
      }
      if (this.atEnd) {
        if (this.rest.length === 0) return undefined;
        const line = this.rest;
        this.rest = Buffer.alloc(0);
        return line;
      }
      const n = readSync(this.fd, this.buf, 0, this.buf.length, null);
      if (n === 0) this.atEnd = true;
      else this.rest = this.rest.length === 0 ? Buffer.from(this.buf.subarray(0, n)) : Buffer.concat([this.rest, this.buf.subarray(0, n)]);
    }
  }
}

/**
 * A v2 cache file's checksum (its last line's SHA-256 of the lines before) when it is whole and of `root`: its lines
 * hash to it (one pass, streamed). Undefined otherwise.
 */
function wholeV2(file: string, root: string): string | undefined {
  const fd = openSync(file, 'r');
  try {
    const lines = new Lines(fd);
    if (lines.next()?.toString() !== FORMAT) return undefined;
    const head = lines.next();
    if (!head || (JSON.parse(head.toString()) as { root?: string }).root !== root) return undefined;
    const hash = createHash('sha256').update(head).update('\n');
    let count = 0;
    for (let line = lines.next(); line; line = lines.next()) {
      if (line[0] === 0x7b /* { */) {
        const end = JSON.parse(line.toString()) as { end?: boolean; models?: number; sha256?: string };
        const whole = end.end === true && end.models === count && end.sha256 === hash.digest('hex') && lines.next() === undefined;
        return whole ? end.sha256 : undefined;
      }
      hash.update(line).update('\n');
      count++;
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The last build's cache, read forward: model folders asked for in walk order, or all of them in turn (a feed). */
export class BuildCache {
  private lines: Lines | undefined;
  private fd: number | undefined;
  private pending: { model: CachedModel; text: string } | undefined;
  /** a cache of the first format: its entries by `owner/name/path`, and no listings */
  private legacy: Map<string, [number, string, string, string, string, string, GgufFacts | null]> | undefined;
  hits = 0;
  /** the last line's checksum of a whole cache of the second format (what the builder's input stamp is made from) */
  checksum: string | undefined;

  private constructor() {}

  static open(file: string | undefined, root: string): BuildCache {
    const cache = new BuildCache();
    if (!file) return cache;
    try {
      const fd = openSync(file, 'r');
      const first = Buffer.alloc(FORMAT.length + 1);
      readSync(fd, first, 0, first.length, 0);
      closeSync(fd);
      if (first.toString() === `${FORMAT}\n`) {
        const checksum = wholeV2(file, root);
        if (!checksum) return cache;
        cache.checksum = checksum;
        cache.fd = openSync(file, 'r');
        cache.lines = new Lines(cache.fd);
        cache.lines.next(); // the format
        cache.lines.next(); // the root
      } else cache.legacy = readV1(file, root);
    } catch {
      // no cache, or one that cannot be read: everything is hashed
    }
    return cache;
  }

  /** Whether the cache lists the last build's folders (a change feed needs it). */
  get listed(): boolean {
    return this.lines !== undefined;
  }

  /** The next folder of the last build, in walk order (undefined at the end). */
  nextModel(): { model: CachedModel; text: string } | undefined {
    if (this.pending) {
      const p = this.pending;
      this.pending = undefined;
      return p;
    }
    const line = this.lines?.next();
    // the last line (the count and checksum) starts with {, a folder's with [
    if (line?.[0] !== 0x5b) {
      this.lines = undefined;
      return undefined;
    }
    const text = line.toString();
    return { model: JSON.parse(text) as CachedModel, text };
  }

  /**
   * The last build's record of folder `id` (asked in walk order: folders before it are passed over): the rows a walk
   * looks files up in, and its line (a cache of the first format has none).
   */
  model(
    id: string,
    before: (a: string, b: string) => boolean,
  ): { rows: (rel: string) => CachedRow | undefined; line?: CachedModel; text?: string } | undefined {
    if (this.legacy) {
      const legacy = this.legacy;
      return {
        rows: (rel) => {
          const e = legacy.get(`${id}/${rel}`);
          return e ? [rel, e[0], `${e[1]}:${e[2]}:${e[3]}:${e[4]}`, e[5], e[6]] : undefined;
        },
      };
    }
    for (let m = this.nextModel(); m; m = this.nextModel()) {
      if (m.model[0] === id) return { rows: rowsOf(m.model), line: m.model, text: m.text };
      if (!before(m.model[0], id)) {
        this.pending = m;
        return undefined;
      }
    }
    return undefined;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.lines = undefined;
  }
}

/** A cache of the first format, read whole (as it was written). */
function readV1(file: string, root: string): BuildCache['legacy'] {
  const text = readFileSync(file, 'utf8');
  const nl = text.indexOf('\n');
  const [format, sum] = text.slice(0, nl).split(' ');
  const body = text.slice(nl + 1);
  if (format !== FORMAT_V1 || createHash('sha256').update(body).digest('hex') !== sum) return undefined;
  const parsed = JSON.parse(body) as {
    root: string;
    entries: Record<string, [number, string, string, string, string, string, GgufFacts | null]>;
  };
  return parsed.root === root ? new Map(Object.entries(parsed.entries)) : undefined;
}

/**
 * The next cache, written beside the build as its folders are indexed (in walk order), to a temp file renamed over
 * the last one only when the build is done: a build that fails leaves the last cache, which is still true of the
 * files it names.
 */
export class NextCache {
  private readonly fd: number;
  private readonly tmp: string;
  private readonly hash: Hash;
  private chunk: string[] = [];
  private size = 0;
  private count = 0;

  constructor(
    private readonly file: string,
    root: string,
  ) {
    mkdirSync(path.dirname(file), { recursive: true });
    // one name: builds on a data folder take turns (its build lock), and a killed one's file is written over
    this.tmp = `${file}.tmp`;
    this.fd = openSync(this.tmp, 'w', 0o644);
    const head = JSON.stringify({ root });
    this.hash = createHash('sha256').update(`${head}\n`);
    writeSync(this.fd, `${FORMAT}\n${head}\n`);
  }

  add(model: CachedModel | string): void {
    // a line as the last cache held it (a folder unchanged) is written as it was
    const line = `${typeof model === 'string' ? model : JSON.stringify(model)}\n`;
    this.hash.update(line);
    this.chunk.push(line);
    this.size += line.length;
    this.count++;
    if (this.size > 1 << 20) this.flush();
  }

  /** The checksum the last line will hold: of every line added so far. */
  checksum(): string {
    return this.hash.copy().digest('hex');
  }

  /** Write the last line, make the file durable and put it in place. */
  async commit(): Promise<void> {
    this.chunk.push(`${JSON.stringify({ end: true, models: this.count, sha256: this.hash.digest('hex') })}\n`);
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
    renameSync(this.tmp, this.file);
    await syncDir(path.dirname(this.file));
  }

  abort(): void {
    try {
      closeSync(this.fd);
      unlinkSync(this.tmp);
    } catch {
      // already gone
    }
  }

  private flush(): void {
    if (this.chunk.length) writeSync(this.fd, this.chunk.join(''));
    this.chunk = [];
    this.size = 0;
  }
}
