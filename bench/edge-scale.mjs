// pnpm bench --edge-scale: a fresh edge isolate (the Worker of apps/edge under workerd, with Miniflare) on SYNTHETIC
// indexes of 100, 10,000 and 100,000 models (design 11.1, issue 39). Per size, once per build: the day built as
// `hub index build` builds it (buildIndex with pages, into the filesystem object store) and its pages uploaded to a
// Miniflare R2 bucket persisted in --keep under the build's print (the pages address of 200 models built by the
// current code: a new layout or builder seeds anew, an unchanged one reuses the bucket). Per
// round and size: a new Miniflare (a new workerd process, so a cold isolate) on that bucket; the time from its ready
// to the first answer of /api/models/{id}; the Worker isolate's V8 heap (read through workerd's inspector after a
// collection) and workerd's resident memory before that answer, after it and after --lookups random models asked twice each
// (16 at once); and the storage operations before the first answer, counted by running the same Worker module
// (dist/worker.js) in Node with Miniflare's R2, KV and D1 bindings wrapped to count every call (as
// apps/edge/test/cold-start.test.ts does), with the heap it keeps there too.
// Usage: node bench/edge-scale.mjs [--sizes 100,10000,100000] [--rounds 3] [--keep DIR] [--lookups 2000: models asked
// twice each after the first answer]
// Needs the build (apps/edge/dist/worker.js, packages/core-index/dist).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, isolateInspector, workerdRssMB } from './edge-inspect.mjs';
import { idOf } from './synthetic-ids.mjs';

if (!global.gc) {
  // the heap figure needs a collection before and after
  const self = new URL(import.meta.url).pathname;
  const args = process.argv.slice(2).filter((a) => a !== '--');
  const { status } = (await import('node:child_process')).spawnSync(process.execPath, ['--expose-gc', self, ...args], { stdio: 'inherit' });
  process.exit(status ?? 1);
}
const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const { values } = parseArgs({
  options: {
    'edge-scale': { type: 'boolean' },
    sizes: { type: 'string', default: '100,10000,100000' },
    rounds: { type: 'string', default: '3' },
    lookups: { type: 'string', default: '2000' },
    keep: { type: 'string' },
    phase: { type: 'string' },
    n: { type: 'string' },
    print: { type: 'string' },
  },
  args: process.argv.slice(2).filter((a) => a !== '--'),
  strict: false,
});
const EDGE = path.join(root, 'apps/edge');
const miniflarePath = createRequire(realpathSync(path.join(EDGE, 'node_modules/wrangler/package.json'))).resolve('miniflare');
const { Miniflare } = await import(miniflarePath);
const core = await import(path.join(root, 'packages/core-index/dist/index.js'));
const testing = await import(path.join(root, 'packages/core-index/dist/testing/index.js'));
const worker = (await import(path.join(EDGE, 'dist/worker.js'))).default;
const keep = values.keep ?? path.join(os.tmpdir(), 'hub-bench-edge-scale');
const PAGES_KINDS = ['model-hub.index-pages', 'model-hub.index-page'];
const print = values.print ?? (await buildPrint());
/** The folder of the bucket of `n` models made by the build `print` (see buildPrint). */
/** How many random models each round asks, twice each, after the first answer (`--lookups`). */
const LOOKUPS = Number(values.lookups);
const keepOf = (n) => path.join(keep, print, `n${n}`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const _WebSocket = createRequire(miniflarePath)('ws');

function miniflare(n, inspectorPort) {
  return new Miniflare({
    ...(inspectorPort ? { inspectorPort } : {}),
    modules: true,
    scriptPath: path.join(EDGE, 'dist/worker.js'),
    modulesRoot: path.join(EDGE, 'dist'),
    compatibilityDate: '2026-04-20',
    r2Buckets: ['OBJECTS'],
    d1Databases: ['ACCOUNTS'],
    kvNamespaces: ['STATE'],
    r2Persist: path.join(keepOf(n), 'r2'),
    kvPersist: path.join(keepOf(n), 'kv'),
    d1Persist: path.join(keepOf(n), 'd1'),
    bindings: { LOG_LEVEL: 'error' },
    host: '127.0.0.1',
    port: 0,
  });
}

/**
 * Which build made the kept buckets: the pages address of a day of 200 SYNTHETIC models, built here with the current
 * build code. A layout change (PAGES_VERSION) or any change to what the builder writes gives another address, so a
 * bucket seeded by an older build is never measured as the current one (it is kept under its own folder).
 */
async function buildPrint() {
  const built = await testing.buildWithPages(new core.MemoryObjectStore(), testing.syntheticModels(200));
  return built.pages.slice('blake3:'.length, 'blake3:'.length + 12);
}

/**
 * In a child process: build `n` SYNTHETIC models as `hub index build` does (buildIndex with pages, streamed, into the
 * filesystem object store, hashed by blake3-wasm) into `dir`, then upload the day's pages and its refs to the
 * persisted R2 bucket. Prints what it did as one JSON line.
 */
async function buildAndUpload(n, dir) {
  // BLAKE3 as `hub index build` hashes (blake3-wasm)
  (await import(path.join(root, 'apps/node-server/dist/index.js'))).installFastBlake3();
  const { FsObjectStore } = await import(path.join(root, 'packages/objects/dist/node/index.js'));
  const fs = new FsObjectStore(path.join(dir, 'fs'));
  // The day's pages only (and the refs below): what a paged isolate reads for look-ups. The model and source objects
  // (two a model, read by the object routes, never by a look-up) are left out: Miniflare's local R2 takes about 125
  // puts a second here, so 100,000 models' 300,000 objects would take 40 minutes.
  const pages = new Set();
  const store = Object.assign(Object.create(fs), {
    put: async (bytes, o) => {
      const r = await fs.put(bytes, o);
      if (PAGES_KINDS.includes(o.kind)) pages.add(r.meta.id);
      return r;
    },
  });
  const t = performance.now();
  const built = await testing.buildWithPages(store, testing.syntheticModelStream(n));
  const buildS = (performance.now() - t) / 1000;
  const root0 = JSON.parse(new TextDecoder().decode((await fs.get(built.pages)).bytes));
  // A seeding Worker on the same persisted bucket takes the objects in batches (one request puts hundreds: one
  // proxy round trip an object through Miniflare's R2 binding ran at about 50 objects a second here).
  const mf = new Miniflare({
    modules: true,
    script: `export default { async fetch(req, env) { try {
      const buf = new Uint8Array(await req.arrayBuffer()); const dv = new DataView(buf.buffer); let o = 0; let n = 0; const puts = [];
      const dec = new TextDecoder();
      while (o < buf.length) {
        const kl = dv.getUint32(o); o += 4; const key = dec.decode(buf.subarray(o, o + kl)); o += kl;
        const ml = dv.getUint32(o); o += 4; const meta = JSON.parse(dec.decode(buf.subarray(o, o + ml))); o += ml;
        const bl = dv.getUint32(o); o += 4; const bytes = buf.slice(o, o + bl); o += bl;
        puts.push(env.OBJECTS.put(key, bytes, meta)); n++;
      }
      await Promise.all(puts);
      return new Response(String(n));
    } catch (e) { return new Response(String(e && e.stack || e), { status: 500 }); } } };`,
    compatibilityDate: '2026-04-20',
    r2Buckets: ['OBJECTS'],
    r2Persist: path.join(dir, 'r2'),
    host: '127.0.0.1',
    port: 0,
  });
  const seeder = (await mf.ready).origin;
  const enc = new TextEncoder();
  const u32 = (v) => {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, v);
    return b;
  };
  const frame = (key, meta, bytes) => {
    const k = enc.encode(key);
    const m = enc.encode(JSON.stringify(meta));
    return [u32(k.length), k, u32(m.length), m, u32(bytes.length), bytes];
  };
  const send = async (parts, tries = 3) => {
    try {
      // a fresh connection each batch (workerd may close an idle kept one as it is reused: "other side closed")
      const res = await fetch(seeder, { method: 'POST', body: Buffer.concat(parts), headers: { connection: 'close' } });
      if (!res.ok) throw new Error(`seeding answered ${res.status}: ${await res.text()}`);
    } catch (e) {
      if (tries <= 1) throw e;
      await send(parts, tries - 1); // puts of the same bytes under the same key: safe to repeat
    }
  };
  const t2 = performance.now();
  let objects = 0;
  let parts = [];
  let bytes = 0;
  for (const address of pages) {
    const stored = await fs.get(address);
    const meta = stored.meta;
    const custom = { kind: meta.kind, mediaType: meta.media_type, created: String(meta.created_at_millis) };
    parts.push(
      ...frame(
        `objects/${address.slice('blake3:'.length)}`,
        { httpMetadata: { contentType: meta.media_type }, customMetadata: custom },
        stored.bytes,
      ),
    );
    bytes += stored.bytes.length;
    objects++;
    if (bytes > 512 * 1024) {
      await send(parts);
      parts = [];
      bytes = 0;
      process.stderr.write(`\rseed ${n}: ${objects} of ${pages.size} objects uploaded`);
    }
  }
  if (parts.length) await send(parts);
  // `current` last, as scripts/seed.mjs writes refs
  for (const ref of ['log', 'archive', 'pins', 'current']) {
    const value = await fs.readRef(ref);
    if (value !== undefined) await send(frame(`refs/${ref}`, {}, enc.encode(value)));
  }
  await mf.dispose();
  process.stderr.write('\n');
  return {
    n,
    layout: root0.version,
    pages: built.pages,
    objects,
    buildS: +buildS.toFixed(1),
    uploadS: +((performance.now() - t2) / 1000).toFixed(1),
  };
}

/** The bucket of `n` models for the current build: kept from an earlier run of the same build, else built now. */
async function seed(n) {
  const done = path.join(keepOf(n), 'seeded');
  if (existsSync(done)) return JSON.parse(readFileSync(done, 'utf8'));
  mkdirSync(keepOf(n), { recursive: true });
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', new URL(import.meta.url).pathname, '--phase', 'seed', '--n', String(n), '--keep', keep, '--print', print],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 2 ** 26 },
  );
  const info = JSON.parse(out.trim().split('\n').pop());
  writeFileSync(done, JSON.stringify(info));
  return info;
}

/**
 * In a child process (so nothing of another round is on its heap): the storage operations before the first answer,
 * counted by running the Worker module (dist/worker.js) in Node on Miniflare's bindings wrapped to count every call,
 * and the heap the Worker keeps after that answer and 2,000 random models asked twice, in Node's V8 (a second view of
 * the isolate's heap that round() reads in workerd; workerd's resident memory also holds the local R2's engine).
 */
async function countAndHeap(n) {
  const mf = miniflare(n);
  await mf.ready;
  const counts = { r2: 0, kv: 0, d1: 0 };
  // R2 calls by their shape: a whole get, a ranged get (with the bytes it asks), a head, a list
  const r2 = { get: 0, ranged: 0, rangedBytes: 0, other: 0 };
  const counted = (binding, key) =>
    new Proxy(binding, {
      get(target, prop) {
        const v = Reflect.get(target, prop);
        if (typeof v !== 'function') return v;
        return (...args) => {
          counts[key]++;
          if (key === 'r2' && prop === 'get' && args[1]?.range) {
            r2.ranged++;
            r2.rangedBytes += args[1].range.length;
          } else if (key === 'r2') r2[prop === 'get' ? 'get' : 'other']++;
          return v.apply(target, args);
        };
      },
    });
  // the layout of the day this bucket serves, read from the bucket itself: refs/current's day in refs/archive, its root
  const bucket = await mf.getR2Bucket('OBJECTS');
  const current = await (await bucket.get('refs/current')).text();
  const day = JSON.parse(await (await bucket.get('refs/archive')).text()).days.find((d) => (d.catalog ?? d.index) === current);
  const layout = JSON.parse(await (await bucket.get(`objects/${day.pages.slice('blake3:'.length)}`)).text()).version;
  const env = {
    OBJECTS: counted(await mf.getR2Bucket('OBJECTS'), 'r2'),
    STATE: counted(await mf.getKVNamespace('STATE'), 'kv'),
    ACCOUNTS: counted(await mf.getD1Database('ACCOUNTS'), 'd1'),
    LOG_LEVEL: 'error',
  };
  // as workerd does, a request's waitUntil work (the data center cache's puts) ends before the next request here: left
  // running, it overlapped the next request's calls through Miniflare's synchronous binding proxy, which failed them
  const waiting = [];
  const ctx = { waitUntil: (p) => waiting.push(p) };
  const settle = () => Promise.allSettled(waiting.splice(0));
  const id = idOf(Math.floor(n / 3) + 2);
  global.gc();
  const heap0 = process.memoryUsage().heapUsed;
  const res = await worker.fetch(new Request(`http://edge.test/api/models/${id}`), env, ctx);
  if (res.status !== 200) throw new Error(`the counted Worker answered ${res.status}`);
  const reads = counts.r2 + counts.kv + counts.d1;
  const before = { ...counts, r2Calls: { ...r2 } };
  await settle();
  let countedFailed = 0;
  for (let k = 0; k < 2 * LOOKUPS; k++) {
    const r = await worker.fetch(new Request(`http://edge.test/api/models/${idOf(((k % LOOKUPS) * 7919 + 29) % n)}`), env, ctx);
    await r.arrayBuffer();
    await settle();
    if (r.status !== 200) countedFailed++;
  }
  global.gc();
  const heapMB = +((process.memoryUsage().heapUsed - heap0) / 2 ** 20).toFixed(1);
  await mf.dispose();
  return { layout, reads, heapMB, before, countedFailed };
}

if (values.phase === 'seed') {
  console.log(JSON.stringify(await buildAndUpload(Number(values.n), keepOf(Number(values.n)))));
  process.exit(0);
}
if (values.phase === 'count') {
  console.log(JSON.stringify(await countAndHeap(Number(values.n))));
  process.exit(0);
}

async function round(n) {
  const port = await freePort();
  const mf = miniflare(n, port);
  const url = (await mf.ready).origin;
  const rssBefore = workerdRssMB();
  const inspector = await isolateInspector(port);
  const heapBefore = await inspector.usedMB();
  const id = idOf(Math.floor(n / 2) + 1);
  const t = performance.now();
  const res = await fetch(`${url}/api/models/${id}`);
  const body = await res.json();
  const firstMs = performance.now() - t;
  if (res.status !== 200 || body.id !== id) throw new Error(`the first answer was ${res.status}`);
  const rssFirst = workerdRssMB();
  const heapFirst = await inspector.usedMB();
  // --lookups random models (2,000), each asked twice (the caches keep a model, a page or an answer from its second ask, so both
  // passes fill them as a hot set would)
  let k = 0;
  const failed = [];
  const one = async () => {
    while (k < 2 * LOOKUPS) {
      const i = ((k++ % LOOKUPS) * 7919 + 13) % n;
      const r = await fetch(`${url}/api/models/${idOf(i)}`);
      const text = await r.text();
      // counted and shown, not thrown: one failure should not lose the round's other figures
      if (r.status !== 200) failed.push(`${idOf(i)}: ${r.status} ${text.slice(0, 160)}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, one));
  const rssAfter = workerdRssMB();
  const heapAfter = await inspector.usedMB();
  inspector.close();
  await mf.dispose();
  // the workerd figures first: a failure of the counted run below does not lose them
  console.log(
    `workerd n=${n} first ${firstMs.toFixed(1)} ms, ${failed.length} of ${2 * LOOKUPS} look-ups failed${failed.length ? ` (first: ${failed[0]})` : ''}`,
  );
  const counted = JSON.parse(
    execFileSync(
      process.execPath,
      [
        '--expose-gc',
        new URL(import.meta.url).pathname,
        '--phase',
        'count',
        '--n',
        String(n),
        '--keep',
        keep,
        '--print',
        print,
        '--lookups',
        String(LOOKUPS),
      ],
      { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 },
    )
      .trim()
      .split('\n')
      .pop(),
  );
  return {
    firstMs: +firstMs.toFixed(1),
    ...counted,
    failed: failed.length,
    ...(failed.length ? { firstFailure: failed[0] } : {}),
    isolateHeapMB: { before: +heapBefore.toFixed(1), first: +heapFirst.toFixed(1), afterLookups: +heapAfter.toFixed(1) },
    rssMB: { before: Math.round(rssBefore), first: Math.round(rssFirst), afterLookups: Math.round(rssAfter) },
  };
}

const sizes = values.sizes.split(',').map(Number);
console.log(`build ${print} (the pages address of 200 SYNTHETIC models built now), kept in ${keep}/${print}`);
for (const n of sizes) console.log(`seeded ${JSON.stringify(await seed(n))}`);
console.log(
  `edge at scale: ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
const firsts = new Map(sizes.map((n) => [n, []]));
for (let r = 1; r <= Number(values.rounds); r++) {
  const order = r % 2 ? sizes : [...sizes].reverse();
  for (const n of order) {
    const m = await round(n);
    firsts.get(n).push(m.firstMs);
    console.log(`round ${r} n=${n} ${JSON.stringify(m)}`);
  }
}
const smallest = median(firsts.get(sizes[0]));
for (const n of sizes)
  console.log(
    `n=${n}: first answer median ${median(firsts.get(n))} ms (${(median(firsts.get(n)) / smallest).toFixed(2)}x the ${sizes[0]}-model figure; per round ${firsts.get(n).join(', ')})`,
  );
process.exit(0);
