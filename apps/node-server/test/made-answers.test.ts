import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  type Address,
  MADE_DIGEST_BYTES,
  MADE_SLOT_BYTES,
  MADE_SLOTS_AT,
  type MadeAnswerMaker,
  openPagedIndex,
  prepare,
} from '@hub/core-index';
import { buildWithPages, CountingObjectStore, request, syntheticModels } from '@hub/core-index/testing';
import { HUB_MADE_ANSWERS } from '@hub/hub';
import { createComposedTestHub } from '@hub/hub/testing';
import { FsObjectStore } from '@hub/objects/node';
import { modelInfo } from '@huggingface/hub';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MADE_ANSWERS_FILE, MADE_TABLE_BYTES, madeAnswersFrom } from '../src/made-answers-file.js';
import { writeMadeAnswers } from '../src/made-answers-writer.js';
import { runCli, sample, startTestHub, type TestHub } from './helpers.js';

/**
 * Issue 39, cold look-ups at any size: the answers every model has (the model info) made after the build into the
 * data folder's made-answers file. Over HTTP, a hub that reads them answers byte for byte as one that renders them
 * (every model, and the asks the file does not hold); in process, a cold look-up reads no object of the store; a
 * damaged record, a file of another day or of other code, and a write cut off are each refused or left whole.
 * 1,500 SYNTHETIC models.
 */

const models = syntheticModels(1_500);
/** SYNTHETIC files added to model `index`: `count` of them, named by `name`, their digests `fill` after the number. */
function widen(index: number, count: number, name: (k: number) => string, size: number, fill: string) {
  const m = models[index];
  if (!m) throw new Error(`no model ${index}`);
  m.files = [
    ...m.files,
    ...Array.from({ length: count }, (_, k) => ({
      path: name(k),
      size: size + k,
      sha256: `${(k % 256).toString(16).padStart(2, '0')}${fill.repeat(62)}`,
    })),
  ];
  return m;
}
// One model of many files: its answer is longer than the reader's first read of a record (4 KiB), so it is read again whole.
const LONG = 700;
const long = widen(LONG, 90, (k) => `shards/part-${k}-of-90.safetensors`, 1000, 'e');
// One of more files still: its answer passes 64 KiB, the longest whose length the slot table keeps in memory, so its
// length is read from its record's head first.
const longer = widen(900, 1500, (k) => `shards/model-${String(k).padStart(5, '0')}-of-01500.safetensors`, 5000, 'd');
let dataDir: string;
let catalog: Address;
let pages: Address;
let plain: TestHub;
let made: TestHub;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-made-'));
  const store = new FsObjectStore(dataDir);
  ({ catalog, pages } = await buildWithPages(store, models));
  // one hub started before the file exists (it renders every answer), one after
  plain = await startTestHub({ dataDir, config: { demo: false, indexStore: 'paged' } });
  const written = await writeMadeAnswers(store, dataDir, catalog);
  expect(written).toMatchObject({ records: models.length, pages });
  made = await startTestHub({ dataDir, config: { demo: false, indexStore: 'paged', metricsPort: 0 } });
}, 600_000);

afterAll(async () => {
  await plain?.close();
  await made?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function answer(hub: TestHub, url: string, init?: RequestInit) {
  const res = await fetch(`${hub.url}${url}`, init);
  return { status: res.status, etag: res.headers.get('etag'), type: res.headers.get('content-type'), body: await res.text() };
}

describe('made answers over HTTP', () => {
  it('answer every model as the hub that renders them, byte for byte', async () => {
    for (const m of models) {
      const url = `/api/models/${m.id}`;
      const [a, b] = await Promise.all([answer(plain, url), answer(made, url)]);
      expect(b.status).toBe(200);
      expect(b).toEqual(a);
    }
    expect(made.logs.join('')).not.toMatch(/made answers not used|was refused/);
    expect((await answer(made, `/api/models/${longer.id}`)).body.length).toBeGreaterThan(65_536);
    // what the operator sees: the file in use, its table in memory, each model answered from it once (a repeated ask
    // is the answer cache's)
    expect((await answer(made, `/api/models/${models[0]?.id}`)).status).toBe(200);
    const text = await (await fetch(made.running.metrics?.url ?? '')).text();
    expect(sample(text, 'hub_made_answers_in_use')).toBe(1);
    expect(sample(text, 'hub_made_answers_table_in_memory')).toBe(1);
    expect(sample(text, 'hub_made_answers_total', { outcome: 'answered' })).toBe(models.length);
    expect(sample(text, 'hub_made_answers_total', { outcome: 'refused' })).toBe(0);
  });

  it("reach the host's JavaScript client (@huggingface/hub modelInfo) as the rendered answers do", async () => {
    const m = models[999];
    if (!m) throw new Error('no model 999');
    const [a, b] = await Promise.all([plain, made].map((h) => modelInfo({ name: m.id, hubUrl: h.url })));
    expect(b?.name).toBe(m.id);
    expect(b).toEqual(a);
  });

  it('leave the asks they do not hold to the route, with the same answers', async () => {
    const m = models[777];
    if (!m) throw new Error('no model 777');
    for (const url of [
      `/api/models/${m.id}?blobs=true`,
      `/api/models/${m.id}?expand=downloads`,
      `/api/models/${m.id}?securityStatus=true`,
      `/api/models/${m.id}/revision/main`,
      `/api/models/${m.id.toUpperCase()}`,
      `/api/models/${m.id}?unrelated=1`,
      '/api/models/synthetic-org-1/no-such-model',
    ]) {
      const [a, b] = await Promise.all([answer(plain, url), answer(made, url)]);
      expect(b, url).toEqual(a);
    }
    const etag = (await answer(made, `/api/models/${m.id}`)).etag as string;

    const conditional = await fetch(`${made.url}/api/models/${models[778]?.id}`, { headers: { 'if-none-match': etag } });
    expect(conditional.status).toBe(200);
    const again = await fetch(`${made.url}/api/models/${m.id}`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });
});

describe('made answers in process', () => {
  it('answer a cold look-up without reading the store, and leave other asks to it', async () => {
    const store = new CountingObjectStore(new FsObjectStore(dataDir));
    const index = await openPagedIndex(store, pages, catalog, { made: madeAnswersFrom(dataDir) });
    const t = await createComposedTestHub({}, { index: () => index });
    store.reset();
    const m = models[1234];
    const info = await request(t.hub, `/api/models/${m?.id}`);
    expect(info.status).toBe(200);
    expect(info.json<{ id: string }>().id).toBe(m?.id);
    expect(store.reads).toBe(0);
    const blobs = await request(t.hub, `/api/models/${m?.id}?blobs=true`);
    expect(blobs.status).toBe(200);
    expect(store.reads).toBeGreaterThan(0);
  });

  // A reader keeps the slot table in memory when it fits its bytes (a look-up is one read), else reads slots per look-up.
  /** A few turns of the event loop: a reader reads its slot table into memory after its open, a turn per 65,536 slots. */
  const tableRead = () => new Promise((resolve) => setTimeout(resolve, 50));
  const READERS = [
    ['with the slot table in memory', MADE_TABLE_BYTES],
    ['reading the slots per look-up', 0],
  ] as const;

  it.each(READERS)('refuse a damaged record and answer that model from the pages (%s)', async (_, tableBytes) => {
    const copy = await mkdtemp(path.join(os.tmpdir(), 'hub-made-damaged-'));
    try {
      const bytes = await readFile(path.join(dataDir, MADE_ANSWERS_FILE));
      const m = models[321];
      if (!m) throw new Error('no model 321');
      // the model's record: found by its id in the records, one byte of its body changed
      const at = bytes.indexOf(Buffer.from(`"id":"${m.id}"`), MADE_SLOTS_AT);
      expect(at).toBeGreaterThan(MADE_SLOTS_AT);
      bytes[at + 6] = (bytes[at + 6] as number) ^ 0x01;
      await writeFile(path.join(copy, MADE_ANSWERS_FILE), bytes);
      const logs: string[] = [];
      const log = { warn: (o: unknown, msg: string) => logs.push(`${JSON.stringify(o)} ${msg}`), info: () => undefined };
      const from = madeAnswersFrom(copy, { log: log as never, tableBytes });
      const reader = from(pages, []);
      expect(reader.inUse).toBe(true);
      await tableRead();
      expect(reader.tableInMemory).toBe(tableBytes > 0);
      expect(reader?.get(`hf:info:false:false:${m.id}`)).toBeUndefined();
      expect(logs.join('\n')).toMatch(/does not match its digest/);
      const other = models[322];
      expect(reader?.get(`hf:info:false:false:${other?.id}`)?.bytes.length).toBeGreaterThan(100);
      // what hub_made_answers_total reports: one refused, one answered (the open's check of the head models is not counted)
      expect(from.state()).toEqual({ inUse: true, tableInMemory: tableBytes > 0, answered: 1, refused: 1 });
      // through the store, the damaged model is still answered, from its pages
      const index = await openPagedIndex(new FsObjectStore(dataDir), pages, catalog, { made: () => reader });
      const t = await createComposedTestHub({}, { index: () => index });
      const res = await request(t.hub, `/api/models/${m.id}`);
      expect(res.status).toBe(200);
      expect(res.json<{ id: string }>().id).toBe(m.id);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });

  it('are not used for another day, for other makers, or when the head models answer otherwise now', async () => {
    const store = new FsObjectStore(dataDir);
    const index = await openPagedIndex(store, pages, catalog);
    const head = index.head();
    const infos: string[] = [];
    const warnings: string[] = [];
    const log = { warn: (o: unknown) => warnings.push(JSON.stringify(o)), info: (o: unknown) => infos.push(JSON.stringify(o)) };
    const from = madeAnswersFrom(dataDir, { log: log as never });
    const key = `hf:info:false:false:${models[50]?.id}`;
    expect(from(pages, head).get(key)).toBeDefined();
    const foreign = from(catalog, head);
    expect(foreign.inUse).toBe(false);
    expect(foreign.get(key)).toBeUndefined();
    const other: MadeAnswerMaker = { ...(HUB_MADE_ANSWERS[0] as MadeAnswerMaker), id: 'hf:info:2' };
    expect(madeAnswersFrom(dataDir, { makers: [other], log: log as never })(pages, head).get(key)).toBeUndefined();
    // same id, other bytes: code that renders the info otherwise than the code that made the file
    const changed: MadeAnswerMaker = { ...(HUB_MADE_ANSWERS[0] as MadeAnswerMaker), make: (m) => prepare({ id: m.id }) };
    expect(madeAnswersFrom(dataDir, { makers: [changed], log: log as never })(pages, head).inUse).toBe(false);
    // another day's file is the usual state between a switch and the write (info); other code is worth a warning
    expect(infos.join('\n')).toMatch(/another day/);
    expect(warnings.join('\n')).toMatch(/other makers/);
    expect(warnings.join('\n')).toMatch(/is not what this hub makes/);
  });

  it('a day opened before its file is written uses the file once it is there', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'hub-made-late-'));
    try {
      const store = new FsObjectStore(dir);
      const day = await buildWithPages(store, models.slice(0, 200));
      const index = await openPagedIndex(store, day.pages, day.catalog, { made: madeAnswersFrom(dir, { recheckMs: 30 }) });
      const key = `hf:info:false:false:${models[150]?.id}`;
      expect(index.made(key)).toBeUndefined();
      await writeMadeAnswers(store, dir, day.catalog);
      // looked for again at most every 30 ms
      await new Promise((r) => setTimeout(r, 60));
      expect(index.made(key)?.bytes.length).toBeGreaterThan(100);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a write cut off leaves the last file whole, and the next write removes its temp file', async () => {
    const store = new FsObjectStore(dataDir);
    const before = await readFile(path.join(dataDir, MADE_ANSWERS_FILE));
    let n = 0;
    const failing: MadeAnswerMaker = {
      ...(HUB_MADE_ANSWERS[0] as MadeAnswerMaker),
      make: (m) => {
        if (++n === 700) throw new Error('killed');
        return (HUB_MADE_ANSWERS[0] as MadeAnswerMaker).make(m);
      },
    };
    await expect(writeMadeAnswers(store, dataDir, catalog, { makers: [failing], reuse: false })).rejects.toThrow('killed');
    expect((await readFile(path.join(dataDir, MADE_ANSWERS_FILE))).equals(before)).toBe(true);
    // a temp file as a killed process leaves it
    await writeFile(path.join(dataDir, `${MADE_ANSWERS_FILE}.tmp-999999`), 'cut');
    const progress: number[] = [];
    await writeMadeAnswers(store, dataDir, catalog, { progress: (done) => progress.push(done) });
    expect(progress.at(-1)).toBe(models.length);
    expect((await readdir(dataDir)).filter((f) => f.startsWith(`${MADE_ANSWERS_FILE}.tmp`))).toEqual([]);
    // the same day, made again: the same bytes
    expect((await readFile(path.join(dataDir, MADE_ANSWERS_FILE))).equals(before)).toBe(true);
  });

  it('a page a worker finds damaged fails the write by its address, and leaves the last file whole', async () => {
    const copy = await mkdtemp(path.join(os.tmpdir(), 'hub-made-worker-'));
    try {
      await cp(dataDir, copy, { recursive: true });
      const store = new FsObjectStore(copy);
      const before = await readFile(path.join(copy, MADE_ANSWERS_FILE));
      const index = await openPagedIndex(store, pages, catalog);
      const page = await index.pageAddress(index.root.models, 5);
      const hex = page.slice('blake3:'.length);
      const file = (await readdir(path.join(copy, 'objects'), { recursive: true })).find((f) => path.basename(f) === hex);
      if (!file) throw new Error(`no file for ${page}`);
      const bytes = await readFile(path.join(copy, 'objects', file));
      bytes[10] = (bytes[10] as number) ^ 0x01;
      await writeFile(path.join(copy, 'objects', file), bytes);
      await expect(writeMadeAnswers(store, copy, catalog, { reuse: false, workers: 2 })).rejects.toThrow(
        `index page ${page} does not hash to its address`,
      );
      expect((await readFile(path.join(copy, MADE_ANSWERS_FILE))).equals(before)).toBe(true);
      expect((await readdir(copy)).filter((f) => f.startsWith(`${MADE_ANSWERS_FILE}.tmp`))).toEqual([]);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });

  it('a write lets the event loop turn (a hub that builds in its own process keeps answering)', async () => {
    const store = new FsObjectStore(dataDir);
    const gaps: number[] = [];
    let last = performance.now();
    const timer = setInterval(() => {
      const t = performance.now();
      gaps.push(t - last);
      last = t;
    }, 1);
    const started = performance.now();
    await writeMadeAnswers(store, dataDir, catalog, { reuse: false });
    const took = performance.now() - started;
    clearInterval(timer);
    // without the turns the loop waits for the whole write: one gap as long as the write
    expect(gaps.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...gaps)).toBeLessThan(took / 2);
  });

  it('a reader that nobody asks fills its slot table within one timer', async () => {
    const reader = madeAnswersFrom(dataDir)(pages, []);
    expect(reader.inUse).toBe(true);
    // one timer, and no look-up: the table is filled while it waits (on timers of its own: an immediate would wait for
    // something else to wake the event loop, which this file's table, one turn long, cannot show under vitest)
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(reader.tableInMemory).toBe(true);
  });

  it.each(READERS)('the file holds every record once, each found by its key through the slots (%s)', async (_, tableBytes) => {
    const bytes = await readFile(path.join(dataDir, MADE_ANSWERS_FILE));
    const head = JSON.parse(bytes.subarray(12, 12 + bytes.readUInt32LE(8)).toString()) as { slots: number; records: number };
    let used = 0;
    for (let i = 0; i < head.slots; i++) if (bytes.readUInt32LE(MADE_SLOTS_AT + i * MADE_SLOT_BYTES + 12) > MADE_DIGEST_BYTES) used++;
    expect(used).toBe(head.records);
    const reader = madeAnswersFrom(dataDir, { tableBytes })(pages, []);
    expect(reader.inUse).toBe(true);
    // the table is read after the open: until then every look-up reads the slots from the file
    expect(reader.tableInMemory).toBe(false);
    for (const m of models.slice(0, 100)) expect(reader?.get(`hf:info:false:false:${m.id}`)).toBeDefined();
    await tableRead();
    expect(reader.tableInMemory).toBe(tableBytes > 0);
    for (const m of models.slice(0, 300)) expect(reader?.get(`hf:info:false:false:${m.id}`)).toBeDefined();
    expect(reader.get(`hf:info:false:false:${long.id}`)?.bytes.length).toBeGreaterThan(4096);
    expect(reader?.get('hf:info:false:false:synthetic-org-1/no-such-model')).toBeUndefined();
  });
});

describe('the next day', () => {
  it('copies the records of the pages that did not change, and writes the file a full write would', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'hub-made-days-'));
    try {
      const store = new FsObjectStore(dir);
      const day1 = await buildWithPages(store, models, '2026-11-28');
      const other: MadeAnswerMaker = { ...(HUB_MADE_ANSWERS[0] as MadeAnswerMaker), make: (m) => prepare({ id: m.id }) };
      // a file made by other code (same maker id, other bytes): its first copied page differs, so nothing is copied
      await writeMadeAnswers(store, dir, day1.catalog, { makers: [other] });
      const changed = models.map((m, i) => (i % 100 === 7 ? { ...m, license: 'apache-2.0' } : m));
      const day2 = await buildWithPages(store, changed, '2026-11-29');
      expect(await writeMadeAnswers(store, dir, day2.catalog)).toMatchObject({ copied: 0, records: models.length });
      const fresh = await readFile(path.join(dir, MADE_ANSWERS_FILE));
      // day 3, one more model changed: every page but its own and those the changes moved is copied
      const day3 = await buildWithPages(
        store,
        changed.map((m, i) => (i === 900 ? { ...m, license: 'bsd-3-clause' } : m)),
        '2026-11-30',
      );
      // the pages that changed made on two worker threads, the rest copied on this one
      const reused = await writeMadeAnswers(store, dir, day3.catalog, { workers: 2 });
      if ('skipped' in reused) throw new Error(reused.skipped);
      expect(reused.threads).toBe(2);
      expect(reused.copied).toBeGreaterThan(models.length / 2);
      expect(reused.copied).toBeLessThan(models.length);
      const copiedBytes = await readFile(path.join(dir, MADE_ANSWERS_FILE));
      // every page made again, on this thread, then on the workers: the same bytes each time
      const full = await writeMadeAnswers(store, dir, day3.catalog, { reuse: false, workers: 0 });
      expect(full).toMatchObject({ copied: 0, threads: 0 });
      expect(copiedBytes.equals(await readFile(path.join(dir, MADE_ANSWERS_FILE)))).toBe(true);
      expect(await writeMadeAnswers(store, dir, day3.catalog, { reuse: false, workers: 2 })).toMatchObject({ copied: 0, threads: 2 });
      expect(copiedBytes.equals(await readFile(path.join(dir, MADE_ANSWERS_FILE)))).toBe(true);
      // the same day again: every page copied, and no thread started for none to make
      expect(await writeMadeAnswers(store, dir, day3.catalog, { workers: 2 })).toMatchObject({ copied: models.length, threads: 0 });
      expect(copiedBytes.equals(await readFile(path.join(dir, MADE_ANSWERS_FILE)))).toBe(true);
      expect(copiedBytes.equals(fresh)).toBe(false);
      // and the file copied is read as the day's
      const reader = madeAnswersFrom(dir)(day3.pages, []);
      expect(reader?.get(`hf:info:false:false:${models[900]?.id}`)).toBeDefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('hub index answers', () => {
  it('writes the file for the day served now, and refuses a folder with no index in one line (exit 2)', async () => {
    const r = await runCli(['index', 'answers', '--data', dataDir]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ catalog, pages, records: models.length });
    const empty = await mkdtemp(path.join(os.tmpdir(), 'hub-made-empty-'));
    try {
      const none = await runCli(['index', 'answers', '--data', empty]);
      expect(none.code).toBe(2);
      expect(none.stderr.trim().split('\n')).toHaveLength(1);
      expect(none.stderr).toMatch(/no index/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
