// pnpm bench --edge-scale: a fresh edge isolate (the Worker of apps/edge under workerd, with Miniflare) on SYNTHETIC
// indexes of 100, 10,000 and 100,000 models (design 11.1, issue 39). Per size, once: the index built in memory with
// its pages (buildWithPages) and uploaded to a Miniflare R2 bucket persisted in --keep (reused by later runs). Per
// round and size: a new Miniflare (a new workerd process, so a cold isolate) on that bucket; the time from its ready
// to the first answer of /api/models/{id}; workerd's resident memory before that answer, after it and after 2,000
// random look-ups (16 at once); and the storage operations before the first answer, counted by running the same
// Worker module (dist/worker.js) in Node with Miniflare's R2, KV and D1 bindings wrapped to count every call (as
// apps/edge/test/cold-start.test.ts does).
// Usage: node bench/edge-scale.mjs [--sizes 100,10000,100000] [--rounds 3] [--keep DIR]
// Needs the build (apps/edge/dist/worker.js, packages/core-index/dist).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
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
    keep: { type: 'string' },
    phase: { type: 'string' },
    n: { type: 'string' },
  },
  args: process.argv.slice(2).filter((a) => a !== '--'),
  strict: false,
});
const EDGE = path.join(root, 'apps/edge');
const { Miniflare } = await import(createRequire(realpathSync(path.join(EDGE, 'node_modules/wrangler/package.json'))).resolve('miniflare'));
const core = await import(path.join(root, 'packages/core-index/dist/index.js'));
const testing = await import(path.join(root, 'packages/core-index/dist/testing/index.js'));
const worker = (await import(path.join(EDGE, 'dist/worker.js'))).default;
const keep = values.keep ?? path.join(os.tmpdir(), 'hub-bench-edge-scale');
const PAGES_KINDS = ['model-hub.index-pages', 'model-hub.index-page'];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function miniflare(n) {
  return new Miniflare({
    modules: true,
    scriptPath: path.join(EDGE, 'dist/worker.js'),
    modulesRoot: path.join(EDGE, 'dist'),
    compatibilityDate: '2026-04-20',
    r2Buckets: ['OBJECTS'],
    d1Databases: ['ACCOUNTS'],
    kvNamespaces: ['STATE'],
    r2Persist: path.join(keep, `n${n}`, 'r2'),
    kvPersist: path.join(keep, `n${n}`, 'kv'),
    d1Persist: path.join(keep, `n${n}`, 'd1'),
    bindings: { LOG_LEVEL: 'error' },
    host: '127.0.0.1',
    port: 0,
  });
}

/** Build `n` SYNTHETIC models with their pages in memory and upload every object and ref (current last), 32 at once. */
async function seed(n) {
  const done = path.join(keep, `n${n}`, 'seeded');
  if (existsSync(done)) return JSON.parse(readFileSync(done, 'utf8'));
  mkdirSync(path.dirname(done), { recursive: true });
  const store = new core.MemoryObjectStore();
  const t = performance.now();
  await testing.buildWithPages(store, testing.syntheticModels(n));
  const buildS = (performance.now() - t) / 1000;
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
    r2Persist: path.join(keep, `n${n}`, 'r2'),
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
  let cursor;
  let kindAt = 0;
  for (;;) {
    // The day's pages only (and the refs below): what a paged isolate reads for look-ups. The model and source objects
    // (two a model, read by the object routes, never by a look-up) are left out: Miniflare's local R2 takes about 125
    // puts a second here, so 100,000 models' 300,000 objects would take 40 minutes.
    const page = await store.list({ kind: PAGES_KINDS[kindAt], limit: 1000, ...(cursor ? { cursor } : {}) });
    let parts = [];
    let bytes = 0;
    for (const meta of page.items) {
      const stored = await store.get(meta.id);
      const custom = { kind: meta.kind, mediaType: meta.media_type, created: String(meta.created_at_millis) };
      parts.push(
        ...frame(
          `objects/${meta.id.slice('blake3:'.length)}`,
          { httpMetadata: { contentType: meta.media_type }, customMetadata: custom },
          stored.bytes,
        ),
      );
      bytes += stored.bytes.length;
      if (bytes > 512 * 1024) {
        await send(parts);
        parts = [];
        bytes = 0;
      }
    }
    if (parts.length) await send(parts);
    objects += page.items.length;
    process.stderr.write(`\rseed ${n}: ${objects} objects uploaded`);
    if (page.next) cursor = page.next;
    else if (++kindAt < PAGES_KINDS.length) cursor = undefined;
    else break;
  }
  // `current` last, as scripts/seed.mjs writes refs
  const refs = [];
  for (const ref of ['log', 'archive', 'pins', 'current']) {
    const value = await store.readRef(ref);
    if (value !== undefined) refs.push(frame(`refs/${ref}`, {}, enc.encode(value)));
  }
  for (const r of refs) await send(r);
  await mf.dispose();
  const info = { n, objects, buildS: +buildS.toFixed(1), uploadS: +((performance.now() - t2) / 1000).toFixed(1) };
  writeFileSync(done, JSON.stringify(info));
  process.stderr.write('\n');
  return info;
}

/** workerd's resident memory (the newest workerd process), in MB. */
function workerdRssMB() {
  const pids = readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'workerd';
      } catch {
        return false;
      }
    });
  const pid = pids.map(Number).sort((a, b) => b - a)[0];
  return pid ? Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024 : 0;
}

/**
 * In a child process (so nothing of another round is on its heap): the storage operations before the first answer,
 * counted by running the Worker module (dist/worker.js) in Node on Miniflare's bindings wrapped to count every call,
 * and the heap the Worker keeps after that answer and 2,000 random look-ups, in Node's V8 (workerd's resident memory
 * also holds the local R2's storage engine, so it cannot tell the isolate's heap).
 */
async function countAndHeap(n) {
  const mf = miniflare(n);
  await mf.ready;
  const counts = { r2: 0, kv: 0, d1: 0 };
  const counted = (binding, key) =>
    new Proxy(binding, {
      get(target, prop) {
        const v = Reflect.get(target, prop);
        if (typeof v !== 'function') return v;
        return (...args) => {
          counts[key]++;
          return v.apply(target, args);
        };
      },
    });
  const env = {
    OBJECTS: counted(await mf.getR2Bucket('OBJECTS'), 'r2'),
    STATE: counted(await mf.getKVNamespace('STATE'), 'kv'),
    ACCOUNTS: counted(await mf.getD1Database('ACCOUNTS'), 'd1'),
    LOG_LEVEL: 'error',
  };
  const ctx = { waitUntil: () => {} };
  const id = idOf(Math.floor(n / 3) + 2);
  global.gc();
  const heap0 = process.memoryUsage().heapUsed;
  const res = await worker.fetch(new Request(`http://edge.test/api/models/${id}`), env, ctx);
  if (res.status !== 200) throw new Error(`the counted Worker answered ${res.status}`);
  const reads = counts.r2 + counts.kv + counts.d1;
  for (let k = 0; k < 2000; k++) {
    const r = await worker.fetch(new Request(`http://edge.test/api/models/${idOf((k * 7919 + 29) % n)}`), env, ctx);
    await r.arrayBuffer();
  }
  global.gc();
  const heapMB = +((process.memoryUsage().heapUsed - heap0) / 2 ** 20).toFixed(1);
  await mf.dispose();
  return { reads, heapMB };
}

if (values.phase === 'count') {
  console.log(JSON.stringify(await countAndHeap(Number(values.n))));
  process.exit(0);
}

async function round(n) {
  const mf = miniflare(n);
  const url = (await mf.ready).origin;
  const rssBefore = workerdRssMB();
  const id = idOf(Math.floor(n / 2) + 1);
  const t = performance.now();
  const res = await fetch(`${url}/api/models/${id}`);
  const body = await res.json();
  const firstMs = performance.now() - t;
  if (res.status !== 200 || body.id !== id) throw new Error(`the first answer was ${res.status}`);
  const rssFirst = workerdRssMB();
  let k = 0;
  const one = async () => {
    while (k < 2000) {
      const i = (k++ * 7919 + 13) % n;
      const r = await fetch(`${url}/api/models/${idOf(i)}`);
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`look-up ${idOf(i)} answered ${r.status}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, one));
  const rssAfter = workerdRssMB();
  await mf.dispose();
  const counted = JSON.parse(
    execFileSync(
      process.execPath,
      ['--expose-gc', new URL(import.meta.url).pathname, '--phase', 'count', '--n', String(n), '--keep', keep],
      { encoding: 'utf8' },
    ).trim(),
  );
  return {
    firstMs: +firstMs.toFixed(1),
    ...counted,
    rssBefore: Math.round(rssBefore),
    rssFirst: Math.round(rssFirst),
    rssAfter2000: Math.round(rssAfter),
  };
}

const sizes = values.sizes.split(',').map(Number);
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
