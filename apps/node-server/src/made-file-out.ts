/**
 * The made-answers file as it is written, whoever makes its records: `writeMadeAnswers` over a built day
 * (made-answers-writer.ts), or the records made as a build writes its models pages (made-answers-build.ts). Records go
 * page by page, in browse order, into a temp file beside the last file; then the models pages, the slot table and the
 * head; fsync, rename over `made-answers`. A kill leaves the last file whole (the next writer removes the temp file).
 * And the last day's file, whose unchanged pages' records are copied instead of made again.
 */
import {
  closeSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import {
  type Address,
  HashSlots,
  MADE_PAGE_BYTES,
  MADE_RECORD_HEAD,
  MADE_SLOT_BYTES,
  MADE_SLOTS_AT,
  MADE_VERSION,
  type MadeAnswerMaker,
  madeHeadBytes,
  madeKeyHash,
  madeRecordLengthAt,
  madeRecordRead,
  madeRecordSpan,
  madeSlotCount,
} from '@hub/core-index';
import { syncDir } from '@hub/objects/node';
import { MADE_ANSWERS_FILE, madeHeadOf } from './made-answers-file.js';
import { madeRecordSound } from './made-digest.js';
import type { MadePage } from './made-jobs.js';

const TEMP_PREFIX = `${MADE_ANSWERS_FILE}.tmp-`;
const CHUNK_BYTES = 4 * 1024 * 1024;
/** What a copy from the last file reads at once (about 280 pages' records). */
const READ_AHEAD = 1024 * 1024;

/** Remove temp files a killed writer left. */
function removeTemps(dataDir: string): void {
  let names: string[] = [];
  try {
    names = readdirSync(dataDir);
  } catch {
    return;
  }
  for (const n of names)
    if (n.startsWith(TEMP_PREFIX))
      try {
        unlinkSync(path.join(dataDir, n));
      } catch {
        // gone already
      }
}

/** Where the records start in a file of `records` records (after the head and the slot table). */
const dataAtFor = (records: number) => MADE_SLOTS_AT + madeSlotCount(records) * MADE_SLOT_BYTES;

/** A growing list of 32-bit numbers. */
class U32s {
  a = new Uint32Array(4096);
  n = 0;
  push(x: number): void {
    if (this.n === this.a.length) {
      const b = new Uint32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = x;
  }
}

export class MadeFileOut {
  private readonly tmp: string;
  private readonly fd: number;
  private readonly chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;
  /** the records' bytes so far; every offset kept is from the records' start */
  private length = 0;
  /** where the records are written in the temp file (moved at the end when the slot table wants another size) */
  private dataAt: number;
  /** per record: its key's two hash lanes, its offset and its length */
  private readonly lanes = new U32s();
  /** per models page: where its records start and end */
  private readonly spans = new U32s();
  /** per models page: its address's 32 bytes (a string each was 90 bytes of heap: 22 MB at 1,000,000 models) */
  private addresses = Buffer.alloc(32 * 1024);
  private pageCount = 0;
  private closed = false;

  /**
   * `records`: how many the file will hold, when known (the records are then written where they stay); a build
   * streaming its pages passes the last day's count, a guess, and the records are moved once if it was wrong.
   */
  constructor(
    private readonly dataDir: string,
    records = 0,
  ) {
    // (a build into a new folder: its first models page can come before the store made the folder)
    mkdirSync(dataDir, { recursive: true });
    removeTemps(dataDir);
    this.tmp = path.join(dataDir, `${TEMP_PREFIX}${process.pid}`);
    this.fd = openSync(this.tmp, 'w+', 0o644);
    this.dataAt = dataAtFor(records);
  }

  /** Records written so far. */
  get records(): number {
    return this.lanes.n / 4;
  }

  private flush(): void {
    let off = 0;
    const at = this.dataAt + this.length - this.used;
    while (off < this.used) off += writeSync(this.fd, this.chunk, off, this.used - off, at + off);
    this.used = 0;
  }

  private put(bytes: Uint8Array): void {
    if (this.used + bytes.length > this.chunk.length) this.flush();
    if (bytes.length > this.chunk.length) {
      let off = 0;
      while (off < bytes.length) off += writeSync(this.fd, bytes, off, bytes.length - off, this.dataAt + this.length + off);
    } else {
      this.chunk.set(bytes, this.used);
      this.used += bytes.length;
    }
    this.length += bytes.length;
  }

  /** The next models page (`blake3:` address) and its records, made or copied. */
  page(address: string, made: MadePage): void {
    const start = this.length;
    this.put(made.bytes);
    const s = made.slots;
    for (let r = 0; r < s.length; r += 4) {
      this.lanes.push(s[r] as number);
      this.lanes.push(s[r + 1] as number);
      this.lanes.push(start + (s[r + 2] as number));
      this.lanes.push(s[r + 3] as number);
    }
    if ((this.pageCount + 1) * 32 > this.addresses.length) {
      const bigger = Buffer.alloc(this.addresses.length * 2);
      this.addresses.copy(bigger);
      this.addresses = bigger;
    }
    this.addresses.write(address.slice('blake3:'.length), this.pageCount++ * 32, 32, 'hex');
    this.spans.push(start);
    this.spans.push(this.length);
  }

  /** Move the records from where they were written to `to` (one pass, from the end when they move forward). */
  private move(to: number): void {
    const from = this.dataAt;
    const buf = this.chunk;
    const step = (off: number) => {
      const n = Math.min(buf.length, this.length - off);
      if (readSync(this.fd, buf, 0, n, from + off) !== n) throw new Error('the made answers temp file is cut');
      let w = 0;
      while (w < n) w += writeSync(this.fd, buf, w, n - w, to + off + w);
    };
    if (to > from) for (let off = Math.floor((this.length - 1) / buf.length) * buf.length; off >= 0; off -= buf.length) step(off);
    else for (let off = 0; off < this.length; off += buf.length) step(off);
    this.dataAt = to;
  }

  /**
   * Write the models pages, the slot table and the head of the day (`catalog`, its pages root `pages`, made by
   * `makers`), fsync, and rename the file over the last one.
   */
  async finish(catalog: Address, pages: Address, makers: readonly MadeAnswerMaker[]): Promise<{ records: number; bytes: number }> {
    try {
      this.flush();
      const records = this.records;
      const dataAt = dataAtFor(records);
      if (dataAt !== this.dataAt) this.move(dataAt);
      const { pageCount } = this;
      const pagesAt = dataAt + this.length;
      if ((pagesAt + pageCount * MADE_PAGE_BYTES) / 8 > 0xffffffff) throw new Error('the made answers are larger than 32 GB');
      const out = Buffer.alloc(pageCount * MADE_PAGE_BYTES);
      for (let p = 0; p < pageCount; p++) {
        const o = p * MADE_PAGE_BYTES;
        this.addresses.copy(out, o, p * 32, p * 32 + 32);
        out.writeUInt32LE((dataAt + (this.spans.a[2 * p] as number)) / 8, o + 32);
        out.writeUInt32LE((dataAt + (this.spans.a[2 * p + 1] as number)) / 8, o + 36);
      }
      let w = 0;
      while (w < out.length) w += writeSync(this.fd, out, w, out.length - w, pagesAt + w);
      const slots = madeSlotCount(records);
      const table = Buffer.alloc(slots * MADE_SLOT_BYTES);
      const l = this.lanes.a;
      for (let r = 0; r < this.lanes.n; r += 4) {
        let i = (l[r] as number) & (slots - 1);
        while (table.readUInt32LE(i * MADE_SLOT_BYTES + 12) !== 0) i = (i + 1) & (slots - 1);
        table.writeUInt32LE(l[r] as number, i * MADE_SLOT_BYTES);
        table.writeUInt32LE(l[r + 1] as number, i * MADE_SLOT_BYTES + 4);
        table.writeUInt32LE((dataAt + (l[r + 2] as number)) / 8, i * MADE_SLOT_BYTES + 8);
        table.writeUInt32LE(l[r + 3] as number, i * MADE_SLOT_BYTES + 12);
      }
      const size = pagesAt + out.length;
      const head = madeHeadBytes({
        kind: 'model-hub.made-answers',
        version: MADE_VERSION,
        catalog,
        pages,
        makers: makers.map((m) => m.id),
        slots,
        records,
        dataAt,
        pagesAt,
        pageCount,
        size,
      });
      if (!head) throw new Error('the made answers head does not fit');
      writeSync(this.fd, table, 0, table.length, MADE_SLOTS_AT);
      writeSync(this.fd, head, 0, head.length, 0);
      // (records moved back leave the end they were written to behind)
      ftruncateSync(this.fd, size);
      fsyncSync(this.fd);
      this.closed = true;
      closeSync(this.fd);
      renameSync(this.tmp, path.join(this.dataDir, MADE_ANSWERS_FILE));
      await syncDir(this.dataDir);
      return { records, bytes: size };
    } catch (e) {
      this.abort();
      throw e;
    }
  }

  /** Close and remove the temp file (the last file stays as it was). */
  abort(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
    try {
      unlinkSync(this.tmp);
    } catch {
      // nothing to remove
    }
  }
}

/**
 * The last day's file, to copy the records of its unchanged models pages from. Each copied page's records are checked
 * against their CRCs, and the first page copied is also made again by the code that runs now (`remake`) and compared
 * byte for byte: on any difference (a file of other code) nothing more is copied.
 */
export class LastMadeFile {
  private checked = false;

  private constructor(
    private fd: number | undefined,
    /** its models pages as the file lists them (address, first and end of its records in 8-byte units) */
    private readonly table: Buffer,
    /** its pages by the first four bytes of their addresses */
    private readonly slots: HashSlots,
    /** the records it holds (a guess of the next day's count) */
    readonly records: number,
  ) {}

  /** The data folder's file when this code reads it and `makers` made it; else none. */
  static open(dataDir: string, makers: readonly MadeAnswerMaker[]): LastMadeFile | undefined {
    let fd: number;
    try {
      fd = openSync(path.join(dataDir, MADE_ANSWERS_FILE), 'r');
    } catch {
      return undefined;
    }
    try {
      const head = madeHeadOf(fd, makers);
      if (typeof head === 'string') throw new Error(head);
      const table = Buffer.allocUnsafe(head.pageCount * MADE_PAGE_BYTES);
      if (readSync(fd, table, 0, table.length, head.pagesAt) !== table.length) throw new Error('cut');
      const slots = new HashSlots(head.pageCount, (i) => table.readUInt32BE(i * MADE_PAGE_BYTES));
      return new LastMadeFile(fd, table, slots, head.records);
    } catch {
      closeSync(fd);
      return undefined;
    }
  }

  private readonly wanted = Buffer.alloc(32);

  /** Where the records of the page at `address` start and end in the file, if it lists the page. */
  private span(address: string): [number, number] | undefined {
    if (!/^blake3:[0-9a-f]{64}$/.test(address)) return undefined;
    this.wanted.write(address.slice('blake3:'.length), 0, 32, 'hex');
    return this.slots.find(this.wanted.readUInt32BE(0), (i): [number, number] | undefined => {
      const at = i * MADE_PAGE_BYTES;
      return this.table.compare(this.wanted, 0, 32, at, at + 32) === 0
        ? [this.table.readUInt32LE(at + 32) * 8, this.table.readUInt32LE(at + 36) * 8]
        : undefined;
    });
  }

  /** Whether the page's records may be copied from here (copying may still fail: {@link copy}). */
  has(address: string): boolean {
    return this.fd !== undefined && this.span(address) !== undefined;
  }

  /**
   * The records of the models page at `address`, copied (their bytes valid until the next call), or undefined when
   * they cannot be (then make them).
   */
  async copy(address: string, remake: () => Promise<MadePage>): Promise<MadePage | undefined> {
    const span = this.fd === undefined ? undefined : this.span(address);
    if (this.fd === undefined || !span) return undefined;
    const found = this.read(this.fd, span);
    if (!found) {
      // damaged before the first was checked: nothing more is copied
      if (!this.checked) this.close();
      return undefined;
    }
    if (!this.checked) {
      // made by the code that runs now?
      if (!Buffer.from(found.bytes).equals((await remake()).bytes)) {
        this.close();
        return undefined;
      }
      this.checked = true;
    }
    return found;
  }

  /** Bytes of the file read ahead: the records of the next pages usually follow this page's (one read, not one a page). */
  private ahead: Buffer = Buffer.alloc(0);
  private aheadAt = 0;
  private aheadBuffer: Buffer | undefined;

  /** The file's bytes from `start` to `end`, valid until the next call. */
  private bytesAt(fd: number, start: number, end: number): Buffer | undefined {
    if (start < this.aheadAt || end > this.aheadAt + this.ahead.length) {
      let buf = this.aheadBuffer;
      if (!buf || buf.length < end - start) buf = this.aheadBuffer = Buffer.allocUnsafe(Math.max(READ_AHEAD, end - start));
      const n = readSync(fd, buf, 0, buf.length, start);
      if (n < end - start) return undefined;
      this.ahead = buf.subarray(0, n);
      this.aheadAt = start;
    }
    return this.ahead.subarray(start - this.aheadAt, end - this.aheadAt);
  }

  private read(fd: number, [start, end]: [number, number]): MadePage | undefined {
    const bytes = this.bytesAt(fd, start, end);
    if (!bytes) return undefined;
    // the page's records as madePage gives them: each key's hash lanes, its place in the page and its length
    const found: number[] = [];
    for (let o = 0; o < bytes.length; ) {
      if (o + MADE_RECORD_HEAD > bytes.length) return undefined;
      const length = madeRecordLengthAt(bytes, o);
      if (o + length > bytes.length) return undefined;
      const record = bytes.subarray(o, o + length);
      const read = madeRecordRead(record);
      if (!read || !madeRecordSound(record)) return undefined;
      const [h1, h2] = madeKeyHash(read.key);
      found.push(h1, h2, o, length);
      o += madeRecordSpan(length);
    }
    return { bytes, slots: Uint32Array.from(found) };
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
