import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import path from 'node:path';
import {
  type Address,
  type IndexedModel,
  type Logger,
  MADE_RECORD_HEAD,
  MADE_SLOT_BYTES,
  MADE_SLOTS_AT,
  type MadeAnswerMaker,
  type MadeAnswers,
  type MadeHead,
  madeHeadRead,
  madeKeyHash,
  madeRecordAnswer,
  madeRecordLengthAt,
  type PreparedBody,
} from '@hub/core-index';
import { HUB_MADE_ANSWERS } from '@hub/hub';
import { madeRecordSound } from './made-digest.js';

/**
 * The data folder's answers made before they are asked (core-index made-answers.ts): one file, `made-answers`,
 * replaced whole by each day's (made-answers-writer.ts), read with positioned reads on a descriptor kept open.
 * A hub whose data folder other replicas share reads the file of its own day only (the head names the pages root).
 */
export const MADE_ANSWERS_FILE = 'made-answers';

/**
 * The head of the made-answers file open on `fd` when this code reads it and `makers` made it (by their ids), else
 * why not.
 */
export function madeHeadOf(fd: number, makers: readonly MadeAnswerMaker[]): MadeHead | string {
  const first = Buffer.alloc(MADE_SLOTS_AT);
  readSync(fd, first, 0, MADE_SLOTS_AT, 0);
  const head = madeHeadRead(first);
  if (typeof head === 'string') return head;
  if (head.makers.join('\n') !== makers.map((m) => m.id).join('\n')) return 'it was made by other makers';
  return head;
}

/** Closes the descriptor of a reader nobody holds any more (a day switched away from, once its requests are done). */
const closer = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
});

/**
 * The most bytes a reader keeps of the slot table by default (8 a slot: 16 MiB holds the 2,097,152 slots of a day of
 * 1,000,000 models); node-server gives it a quarter of the cache budget's index share (start-steps.ts).
 */
export const MADE_TABLE_BYTES = 16 * 1024 * 1024;

/** What a record read takes in one positioned read: most records are under a kilobyte; a longer one is read again whole. */
const WINDOW = 4096;

/**
 * A made-answers file open for reading. A look-up is one positioned read of its record when the slot table is kept
 * in memory (each slot's first hash lane and record offset, 8 bytes a slot, read after the open when it fits
 * `tableBytes`), or a positioned read of its slots and one of its record until then or when it does not fit.
 */
class MadeAnswersFile implements MadeAnswers {
  private readonly slots: number;
  /** where the records end (a record's length from its header is held to it) */
  private readonly recordsEnd: number;
  /** per slot: its first hash lane and its record's offset in units of 8 (0: empty), once kept in memory */
  private table: Uint32Array | undefined;
  private readonly scratch = Buffer.allocUnsafe(Math.max(WINDOW, 8 * MADE_SLOT_BYTES));
  private warned = false;

  constructor(
    private readonly fd: number,
    private readonly file: string,
    head: MadeHead,
    tableBytes: number,
    private readonly tally: MadeTally,
    private readonly log?: Logger,
  ) {
    this.slots = head.slots;
    this.recordsEnd = head.pagesAt;
    if (head.slots * 8 <= tableBytes && endianness() === 'LE') this.fillTable();
  }

  /**
   * Read the slot table's first lanes and offsets into memory, 65,536 slots a turn of the event loop, after the
   * open: its memory is new to the process, and first touching 16 MB costs about 80 ms on this project's VMs (page
   * faults), so a start does not wait for it; look-ups read the slots from the file until it is whole.
   */
  private fillTable(): void {
    const table = new Uint32Array(this.slots * 2);
    const per = 65_536;
    const run = new Uint32Array(per * (MADE_SLOT_BYTES / 4));
    const bytes = new Uint8Array(run.buffer);
    let first = 0;
    const step = () => {
      try {
        const n = Math.min(per, this.slots - first);
        const want = n * MADE_SLOT_BYTES;
        if (readSync(this.fd, bytes, 0, want, MADE_SLOTS_AT + first * MADE_SLOT_BYTES) !== want) throw new Error('the slot table is cut');
        // the file is little-endian, read here as 32-bit words of this host (a big-endian host keeps no table); an
        // empty slot is all zeros, so its offset is 0 in the table too
        // per slot: the first lane's high 16 bits with the record's length in the low 16 (0: longer, read from its
        // header), so a look-up reads the record alone; and its offset
        for (let j = 0, t = 2 * first; j < n; j++, t += 2) {
          const length = run[4 * j + 3] as number;
          table[t] = (((run[4 * j] as number) & 0xffff0000) | (length <= 0xffff ? length : 0)) >>> 0;
          table[t + 1] = run[4 * j + 2] as number;
        }
        first += n;
      } catch (e) {
        this.log?.warn(
          { event: 'made-answers', file: this.file, err: String(e).slice(0, 200) },
          'the made answers slot table stays on disk',
        );
        return;
      }
      if (first < this.slots) setTimeout(step, 0).unref();
      else this.table = table;
    };
    // A timer, not an immediate: an unref'd immediate runs only when something else wakes the event loop (an idle
    // hub filled one step a request, or none at all), while an unref'd timer sets the loop's wait like any other.
    setTimeout(step, 0).unref();
  }

  /** whether the slot table is kept in memory */
  get tableInMemory(): boolean {
    return this.table !== undefined;
  }

  get(key: string): PreparedBody | undefined {
    const [h1, h2] = madeKeyHash(key);
    let found: PreparedBody | undefined;
    try {
      found = this.table ? this.fromTable(this.table, key, h1) : this.fromSlots(key, h1, h2);
    } catch (e) {
      found = this.refuse(`a read failed: ${String(e).slice(0, 200)}`);
    }
    if (found) this.tally.answered++;
    return found;
  }

  private fromTable(table: Uint32Array, key: string, h1: number): PreparedBody | undefined {
    const mask = this.slots - 1;
    const lane = h1 >>> 16;
    for (let i = h1 & mask, probed = 0; probed < this.slots; probed++, i = (i + 1) & mask) {
      const unit = table[2 * i + 1] as number;
      if (unit === 0) return undefined;
      const word = table[2 * i] as number;
      if (word >>> 16 !== lane) continue;
      const length = word & 0xffff;
      const found = this.record(unit * 8, length === 0 ? undefined : length, key);
      if (found) return found;
    }
    return undefined;
  }

  private fromSlots(key: string, h1: number, h2: number): PreparedBody | undefined {
    const mask = this.slots - 1;
    const s = this.scratch;
    let i = h1 & mask;
    for (let probed = 0; probed < this.slots; ) {
      const n = Math.min(8, this.slots - i);
      readSync(this.fd, s, 0, n * MADE_SLOT_BYTES, MADE_SLOTS_AT + i * MADE_SLOT_BYTES);
      for (let j = 0; j < n; j++) {
        const at = j * MADE_SLOT_BYTES;
        const length = s.readUInt32LE(at + 12);
        if (length === 0) return undefined;
        if (s.readUInt32LE(at) !== h1 || s.readUInt32LE(at + 4) !== h2) continue;
        const found = this.record(s.readUInt32LE(at + 8) * 8, length, key);
        if (found) return found;
      }
      probed += n;
      i = (i + n) & mask;
    }
    return undefined;
  }

  /**
   * The record at `offset` if it is `key`'s and whole; a damaged one is refused (logged once). Its length is the
   * slot's (the table keeps it up to 64 KiB), read alone into the answer's own buffer; else its header's, read with the
   * first window of bytes.
   */
  private record(offset: number, length: number | undefined, key: string): PreparedBody | undefined {
    let window = 0;
    if (length === undefined) {
      window = readSync(this.fd, this.scratch, 0, Math.min(WINDOW, this.recordsEnd - offset), offset);
      if (window < MADE_RECORD_HEAD) return this.refuse('a record is cut');
      length = madeRecordLengthAt(this.scratch, 0);
    }
    if (offset + length > this.recordsEnd) return this.refuse('a record does not add up');
    const record = Buffer.allocUnsafe(length);
    if (length <= window) this.scratch.copy(record, 0, 0, length);
    else if (readSync(this.fd, record, 0, length, offset) !== length) return this.refuse('a record is cut');
    const answer = madeRecordAnswer(record, key);
    if (answer === undefined) return this.refuse('a record does not add up');
    if (answer === null) return undefined;
    if (!madeRecordSound(record)) return this.refuse('a record does not match its digest');
    return answer;
  }

  private refuse(reason: string): undefined {
    this.tally.refused++;
    if (!this.warned) {
      this.warned = true;
      this.log?.warn({ event: 'made-answers', file: this.file, reason }, 'a made answer was refused: answered from the index pages');
    }
    return undefined;
  }
}

/** How often a store whose day has no usable file looks again (the file is written after the day is switched to). */
export const MADE_RECHECK_MS = 5_000;

const NO_FILE = 'there is no made-answers file';
const OTHER_DAY = 'the file is of another day';

/** The file's reader when it is this day's and made by these makers as they make answers now, else why not. */
function openMade(
  file: string,
  pages: Address,
  headModels: readonly IndexedModel[],
  { makers, log, tableBytes }: MadeOptions,
  tally: MadeTally,
): MadeAnswersFile | string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return NO_FILE;
  }
  let reader: MadeAnswersFile | undefined;
  const why = (() => {
    const head = madeHeadOf(fd, makers);
    if (typeof head === 'string') return head;
    if (head.pages !== pages) return OTHER_DAY;
    if (fstatSync(fd).size !== head.size) return 'the file is not as long as its head says';
    // Made by this code? The head models' answers are made again and compared (a file of an older hub is not used),
    // by a reader of its own: its look-ups are not the hub's (not counted), and it keeps no table.
    const check = new MadeAnswersFile(fd, file, head, 0, { answered: 0, refused: 0 }, log);
    for (const model of headModels)
      for (const maker of makers) {
        const kept = check.get(maker.key(model));
        const now = maker.make(model);
        if (!kept || kept.etag !== now.etag || kept.contentType !== now.contentType || !Buffer.from(kept.bytes).equals(now.bytes))
          return `the answer ${maker.key(model).slice(0, 120)} is not what this hub makes`;
      }
    // the hub's reader, whose slot table is filled after the open, only for a file that is used
    try {
      reader = new MadeAnswersFile(fd, file, head, tableBytes, tally, log);
    } catch (e) {
      return `its slot table could not be read: ${String(e).slice(0, 200)}`;
    }
    return undefined;
  })();
  if (why === undefined && reader) {
    closer.register(reader, fd);
    return reader;
  }
  closeSync(fd);
  return why ?? 'unreadable';
}

/**
 * The day's made answers, looked for again while the day has none: the file is written after a build has switched
 * `current` (a hub watching the folder switches first), so a store opened before it picks it up within
 * {@link MADE_RECHECK_MS}. Each reason it is not used is logged once.
 */
class MadeAnswersOfDay implements MadeAnswers {
  private reader: MadeAnswersFile | undefined;
  private nextLook = 0;
  private said = '';

  constructor(
    private readonly look: () => MadeAnswersFile | string,
    private readonly recheckMs: number,
    private readonly log: Logger | undefined,
    private readonly pages: Address,
  ) {
    this.lookAgain(0);
  }

  get(key: string): PreparedBody | undefined {
    if (this.reader) return this.reader.get(key);
    const now = Date.now();
    if (now < this.nextLook) return undefined;
    this.lookAgain(now);
    // (set by lookAgain: TypeScript keeps the narrowing of the first line)
    return (this.reader as MadeAnswersFile | undefined)?.get(key);
  }

  /** whether the day's file is in use now */
  get inUse(): boolean {
    return this.reader !== undefined;
  }

  /** whether the file in use keeps its slot table in memory (a look-up is then one positioned read) */
  get tableInMemory(): boolean {
    return this.reader?.tableInMemory ?? false;
  }

  private lookAgain(now: number): void {
    this.nextLook = now + this.recheckMs;
    let got: MadeAnswersFile | string;
    try {
      got = this.look();
    } catch (e) {
      got = `a read failed: ${String(e).slice(0, 200)}`;
    }
    if (typeof got !== 'string') {
      this.reader = got;
      if (this.said) this.log?.info({ event: 'made-answers', pages: this.pages }, 'made answers in use for this day');
      return;
    }
    if (got === this.said) return;
    this.said = got;
    // no file, or the last day's, is the state between a switch and the write; anything else is worth a warning
    const usual = got === NO_FILE || got === OTHER_DAY;
    (usual ? this.log?.info : this.log?.warn)?.call(
      this.log,
      { event: 'made-answers', pages: this.pages, reason: got },
      'made answers not used (yet): cold look-ups read the index pages; a build or hub index answers writes them',
    );
  }
}

/** How a data folder's made answers are read. */
export interface MadeOptions {
  /** the makers this hub answers with (the file must have been made by them) */
  makers: readonly MadeAnswerMaker[];
  log?: Logger;
  /** how often a day without a usable file looks again, in ms */
  recheckMs: number;
  /** the most bytes of memory the slot table may take (8 a slot); a larger table is read from the file per look-up */
  tableBytes: number;
}

/**
 * The `made` option of the paged store (`PagedIndexOptions.made`) for this data folder: the day's made answers,
 * read from the file when it is the day's (same pages root, same makers) and answers as the makers do now for the
 * day's head models, and looked for again every `recheckMs` while it is not. Each file reader keeps its own
 * descriptor, closed when the store that holds it is collected, and its slot table in memory when it fits
 * `tableBytes`.
 */
export function madeAnswersFrom(dataDir: string, options: Partial<MadeOptions> = {}) {
  const o: MadeOptions = { makers: HUB_MADE_ANSWERS, recheckMs: MADE_RECHECK_MS, tableBytes: MADE_TABLE_BYTES, ...options };
  const file = path.join(dataDir, MADE_ANSWERS_FILE);
  const tally: MadeTally = { answered: 0, refused: 0 };
  let last: MadeAnswersOfDay | undefined;
  const open = (pages: Address, headModels: readonly IndexedModel[]): MadeAnswersOfDay =>
    (last = new MadeAnswersOfDay(() => openMade(file, pages, headModels, o, tally), o.recheckMs, o.log, pages));
  return Object.assign(open, {
    /** The reader of the day opened last (the day served) and the look-ups of every day's reader so far. */
    state: (): MadeState => ({ inUse: last?.inUse ?? false, tableInMemory: last?.tableInMemory ?? false, ...tally }),
  });
}

/** Look-ups a data folder's made answers answered, and records they refused (damaged, cut, or a read failed). */
interface MadeTally {
  answered: number;
  refused: number;
}

/** What `hub_made_answers_*` report (metrics.ts): the day served's file in use, its table in memory, the tallies. */
export interface MadeState extends MadeTally {
  inUse: boolean;
  tableInMemory: boolean;
}
