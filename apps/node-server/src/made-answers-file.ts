import { createHash } from 'node:crypto';
import { closeSync, fstatSync, fsyncSync, openSync, readdirSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
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
  madeHeadBytes,
  madeHeadRead,
  madeKeyHash,
  madeRecordFields,
  madeRecordRead,
  madeSlotCount,
  openPagedIndex,
  type PreparedBody,
} from '@hub/core-index';
import { dayOf, HUB_MADE_ANSWERS, indexStoreKind, servedFromPages } from '@hub/hub';
import { type FsObjectStore, syncDir } from '@hub/objects/node';

/**
 * The data folder's answers made before they are asked (core-index made-answers.ts): one file, `made-answers`,
 * replaced whole by each day's (a temp file, fsync, rename), read with positioned reads on a descriptor kept open.
 * A hub whose data folder other replicas share reads the file of its own day only (the head names the pages root).
 */
export const MADE_ANSWERS_FILE = 'made-answers';

const TEMP_PREFIX = `${MADE_ANSWERS_FILE}.tmp-`;

function sha256(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(bytes).digest();
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
  /** records refused (their digest or lengths did not match): answered from the pages instead */
  refused = 0;

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
    const fields = record.subarray(0, length - MADE_DIGEST_BYTES);
    if (!sha256(fields).equals(record.subarray(length - MADE_DIGEST_BYTES))) return this.refuse('a record does not match its digest');
    return read.answer;
  }

  private refuse(reason: string): undefined {
    this.refused++;
    if (!this.warned) {
      this.warned = true;
      this.log?.warn({ event: 'made-answers', file: this.file, reason }, 'a made answer was refused: answered from the index pages');
    }
    return undefined;
  }
}

/**
 * The `made` option of the paged store (`PagedIndexOptions.made`) for this data folder: the file's reader when it is
 * the day's (same pages root, same makers) and answers as the makers do now for the day's head models, else
 * undefined (the store reads its pages, as without the file). Each reader keeps its own descriptor, closed when the
 * store that holds it is collected.
 */
export function madeAnswersFrom(dataDir: string, makers: readonly MadeAnswerMaker[] = HUB_MADE_ANSWERS, log?: Logger) {
  const file = path.join(dataDir, MADE_ANSWERS_FILE);
  return (pages: Address, headModels: readonly IndexedModel[]): MadeAnswers | undefined => {
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch {
      log?.info({ event: 'made-answers', pages }, 'no made answers for this day: cold look-ups read the index pages (hub index answers)');
      return undefined;
    }
    const notUsed = (reason: string) => {
      closeSync(fd);
      log?.warn(
        { event: 'made-answers', file, pages, reason },
        'made answers not used: cold look-ups read the index pages (hub index answers)',
      );
      return undefined;
    };
    const first = Buffer.alloc(MADE_SLOTS_AT);
    readSync(fd, first, 0, MADE_SLOTS_AT, 0);
    const head = madeHeadRead(first);
    if (typeof head === 'string') return notUsed(head);
    if (head.pages !== pages) return notUsed('they are of another day');
    if (head.makers.join('\n') !== makers.map((m) => m.id).join('\n')) return notUsed('they were made by other makers');
    if (fstatSync(fd).size !== head.size) return notUsed('the file is not as long as its head says');
    const reader = new MadeAnswersFile(fd, file, head, log);
    // Made by this code? The head models' answers are made again and compared (a file of an older hub is not used).
    for (const model of headModels)
      for (const maker of makers) {
        const kept = reader.get(maker.key(model));
        const now = maker.make(model);
        if (!kept || kept.etag !== now.etag || kept.contentType !== now.contentType || !Buffer.from(kept.bytes).equals(now.bytes))
          return notUsed(`the answer ${maker.key(model).slice(0, 120)} is not what this hub makes`);
      }
    closer.register(reader, fd);
    return reader;
  };
}

/** A writer's progress: models done of the day's. */
export type MadeProgress = (done: number, total: number) => void;

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

/**
 * Write the made answers of the day `catalog` (its pages read and checked as a paged store reads them) into the data
 * folder: a temp file written in order, then its slot table and head, fsync, rename over `made-answers`. A kill
 * leaves the last file whole (a later write removes the temp file). Returns what was written, or why nothing was.
 */
export async function writeMadeAnswers(
  objects: FsObjectStore,
  dataDir: string,
  catalog: Address,
  options: { makers?: readonly MadeAnswerMaker[]; log?: Logger; progress?: MadeProgress } = {},
): Promise<{ records: number; bytes: number; pages: Address } | { skipped: string }> {
  const makers = options.makers ?? HUB_MADE_ANSWERS;
  const day = await dayOf(objects, catalog);
  if (!day.pages) return { skipped: 'the day has no index pages' };
  const index = await openPagedIndex(objects, day.pages, catalog, { cacheBytes: 16 * 1024 * 1024 });
  const models = index.totals.models;
  const records = models * makers.length;
  const slots = madeSlotCount(records);
  const dataAt = MADE_SLOTS_AT + slots * MADE_SLOT_BYTES;
  const table = Buffer.alloc(slots * MADE_SLOT_BYTES);
  removeTemps(dataDir);
  const tmp = path.join(dataDir, `${TEMP_PREFIX}${process.pid}`);
  const fd = openSync(tmp, 'w', 0o644);
  const chunk = Buffer.allocUnsafe(4 * 1024 * 1024);
  let used = 0;
  let at = dataAt;
  const flush = () => {
    let off = 0;
    while (off < used) off += writeSync(fd, chunk, off, used - off, at - used + off);
    used = 0;
  };
  const put = (bytes: Uint8Array) => {
    if (used + bytes.length > chunk.length) flush();
    if (bytes.length > chunk.length) {
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off, at + off);
      at += bytes.length;
      return;
    }
    chunk.set(bytes, used);
    used += bytes.length;
    at += bytes.length;
  };
  const pad = new Uint8Array(8);
  try {
    for (let rank = 0; rank < models; rank++) {
      const model = await index.modelAt(rank);
      for (const maker of makers) {
        const key = maker.key(model);
        const fields = madeRecordFields(key, maker.make(model));
        if (typeof fields === 'string') throw new Error(fields);
        const offset = at;
        const length = fields.length + MADE_DIGEST_BYTES;
        put(fields);
        put(sha256(fields));
        if (at % 8 !== 0) put(pad.subarray(0, 8 - (at % 8)));
        if (offset / 8 > 0xffffffff) throw new Error('the made answers are larger than 32 GB');
        const [h1, h2] = madeKeyHash(key);
        let i = h1 & (slots - 1);
        while (table.readUInt32LE(i * MADE_SLOT_BYTES + 12) !== 0) i = (i + 1) & (slots - 1);
        table.writeUInt32LE(h1, i * MADE_SLOT_BYTES);
        table.writeUInt32LE(h2, i * MADE_SLOT_BYTES + 4);
        table.writeUInt32LE(offset / 8, i * MADE_SLOT_BYTES + 8);
        table.writeUInt32LE(length, i * MADE_SLOT_BYTES + 12);
      }
      if ((rank + 1) % 10_000 === 0 || rank + 1 === models) options.progress?.(rank + 1, models);
    }
    flush();
    const head = madeHeadBytes({
      kind: 'model-hub.made-answers',
      version: 1,
      catalog,
      pages: day.pages,
      makers: makers.map((m) => m.id),
      slots,
      records,
      dataAt,
      size: at,
    });
    if (!head) throw new Error('the made answers head does not fit');
    writeSync(fd, table, 0, table.length, MADE_SLOTS_AT);
    writeSync(fd, head, 0, head.length, 0);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // nothing to remove
    }
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, path.join(dataDir, MADE_ANSWERS_FILE));
  await syncDir(dataDir);
  options.log?.info(
    { event: 'made-answers', catalog, pages: day.pages, records, bytes: at },
    'answers made for the cold look-ups of this day',
  );
  return { records, bytes: at, pages: day.pages };
}

/**
 * After a build or an import: write the day's made answers when the hub serves it from its pages (`indexStore`, as
 * `openDay` decides); logged and never thrown (without the file, cold look-ups read the pages, as before).
 */
export async function writeMadeAnswersAfterBuild(
  objects: FsObjectStore,
  dataDir: string,
  catalog: Address,
  indexStore: string | undefined,
  log?: Logger,
  progress?: MadeProgress,
): Promise<void> {
  try {
    const kind = indexStoreKind(indexStore, 'indexStore (or HUB_INDEX_STORE)');
    if (!servedFromPages(kind, await dayOf(objects, catalog))) return;
    const r = await writeMadeAnswers(objects, dataDir, catalog, { ...(log ? { log } : {}), ...(progress ? { progress } : {}) });
    if ('skipped' in r) log?.info({ event: 'made-answers', catalog, reason: r.skipped }, 'no made answers');
  } catch (e) {
    log?.warn({ event: 'made-answers', catalog, err: String(e).slice(0, 300) }, 'no made answers: cold look-ups read the index pages');
  }
}
