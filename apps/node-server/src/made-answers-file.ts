import crypto from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import {
  type Address,
  type IndexedModel,
  type Logger,
  MADE_DIGEST_BYTES,
  MADE_SLOT_BYTES,
  MADE_SLOTS_AT,
  type MadeAnswerMaker,
  type MadeAnswers,
  type MadeHead,
  madeHeadRead,
  madeKeyHash,
  madeRecordRead,
  type PreparedBody,
} from '@hub/core-index';
import { HUB_MADE_ANSWERS } from '@hub/hub';

/**
 * The data folder's answers made before they are asked (core-index made-answers.ts): one file, `made-answers`,
 * replaced whole by each day's (made-answers-writer.ts), read with positioned reads on a descriptor kept open.
 * A hub whose data folder other replicas share reads the file of its own day only (the head names the pages root).
 */
export const MADE_ANSWERS_FILE = 'made-answers';

/** node:crypto's one-shot `hash` (Node 20.12 and later): about half the cost of a Hash object for a record. */
const oneShot = (crypto as { hash?: (algorithm: string, data: Uint8Array, encoding: 'buffer') => Buffer }).hash;

/** A record's digest: SHA-256 by node:crypto (the file is local state, never a hub object; see the load pack's). */
export function madeDigest(bytes: Uint8Array): Buffer {
  return oneShot ? oneShot('sha256', bytes, 'buffer') : crypto.createHash('sha256').update(bytes).digest();
}

/** Whether a record (its digest last) matches its digest. */
export function madeRecordSound(record: Uint8Array): boolean {
  const end = record.length - MADE_DIGEST_BYTES;
  return end >= 0 && madeDigest(record.subarray(0, end)).equals(record.subarray(end));
}

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

/** A made-answers file open for reading: a look-up is one positioned read of its slots and one of its record. */
class MadeAnswersFile implements MadeAnswers {
  private readonly slots: number;
  private readonly scratch = Buffer.allocUnsafe(8 * MADE_SLOT_BYTES);
  private warned = false;

  constructor(
    private readonly fd: number,
    private readonly file: string,
    head: MadeHead,
    private readonly log?: Logger,
  ) {
    this.slots = head.slots;
  }

  get(key: string): PreparedBody | undefined {
    const [h1, h2] = madeKeyHash(key);
    const mask = this.slots - 1;
    const s = this.scratch;
    let i = h1 & mask;
    try {
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
    } catch (e) {
      this.refuse(`a read failed: ${String(e).slice(0, 200)}`);
    }
    return undefined;
  }

  /** The record at `offset` if it is `key`'s and whole; a damaged one is refused (logged once). */
  private record(offset: number, length: number, key: string): PreparedBody | undefined {
    const record = Buffer.allocUnsafe(length);
    if (readSync(this.fd, record, 0, length, offset) !== length) return this.refuse('a record is cut');
    const read = madeRecordRead(record);
    if (!read) return this.refuse('a record does not add up');
    if (read.key !== key) return undefined;
    if (!madeRecordSound(record)) return this.refuse('a record does not match its digest');
    return read.answer;
  }

  private refuse(reason: string): undefined {
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
  makers: readonly MadeAnswerMaker[],
  log: Logger | undefined,
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
    reader = new MadeAnswersFile(fd, file, head, log);
    // Made by this code? The head models' answers are made again and compared (a file of an older hub is not used).
    for (const model of headModels)
      for (const maker of makers) {
        const kept = reader.get(maker.key(model));
        const now = maker.make(model);
        if (!kept || kept.etag !== now.etag || kept.contentType !== now.contentType || !Buffer.from(kept.bytes).equals(now.bytes))
          return `the answer ${maker.key(model).slice(0, 120)} is not what this hub makes`;
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

/**
 * The `made` option of the paged store (`PagedIndexOptions.made`) for this data folder: the day's made answers,
 * read from the file when it is the day's (same pages root, same makers) and answers as the makers do now for the
 * day's head models, and looked for again every `recheckMs` while it is not. Each file reader keeps its own
 * descriptor, closed when the store that holds it is collected.
 */
export function madeAnswersFrom(
  dataDir: string,
  makers: readonly MadeAnswerMaker[] = HUB_MADE_ANSWERS,
  log?: Logger,
  recheckMs = MADE_RECHECK_MS,
) {
  const file = path.join(dataDir, MADE_ANSWERS_FILE);
  return (pages: Address, headModels: readonly IndexedModel[]): MadeAnswersOfDay =>
    new MadeAnswersOfDay(() => openMade(file, pages, headModels, makers, log), recheckMs, log, pages);
}
