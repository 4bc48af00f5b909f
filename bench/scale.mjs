// pnpm bench --scale: what a start, a process and a request cost at N SYNTHETIC models with the paged store (design
// 11.1), against the whole-index store at 2,000 models as the yardstick, measured in the same run. Each size is built
// once into a data folder (kept in --keep DIR, default the OS temp folder) by a child process (its build time and
// peak RSS measured), then served by a fresh child process per round that opens the day's pages from the filesystem
// object store and runs the look-ups in process (no HTTP: the hub's HTTP cost is pnpm bench's; this is the index's).
// Usage: node bench/scale.mjs [--sizes 10000,100000] [--rounds 3] [--keep DIR]
// One build: node bench/scale.mjs --phase build --n N --dir DIR [--days 3] [--no-reuse] [--no-answers | --answers-after] [--null-store] [--pure-blake3]
//   [--feed: days 2 and 3 given as a change feed gives them: a model the day before had the same way as its id alone]
//   [--skip K: only the days after the first K, into a DIR that holds them (a `cp -al` copy: one day again, to profile)]
//   [--insert K: K new models on days 2 and 3, spread through the browse order] [--change license|files|tags: what
//   day 2 changes in every hundredth model (synthetic-ids.mjs `changedModel`)]
//   [--every K: a progress line every K models (memory.mjs), with the live heap under --expose-gc] [--snapshot-over MB] [--default-heap: V8's own heap growth]
// A day on which few models changed: node bench/scale.mjs --phase days --n N [--rounds 3] [--keep DIR] (the 1 %-changed
//   and the unchanged day's build time as ratios to the full build of the same run, with and without the build memo).
// Storage reads are counted by a counting ObjectStore around the filesystem store (every get, has, meta, list, ref).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { memoryLine, peakSampler } from './memory.mjs';
import { changedModel, idOf, modelOf } from './synthetic-ids.mjs';

const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const dist = (p) => path.join(root, p);
const { values } = parseArgs({
  options: {
    scale: { type: 'boolean' },
    sizes: { type: 'string', default: '10000,100000' },
    rounds: { type: 'string', default: '3' },
    keep: { type: 'string' },
    phase: { type: 'string' },
    n: { type: 'string' },
    dir: { type: 'string' },
    store: { type: 'string', default: 'paged' },
    'pure-blake3': { type: 'boolean' },
    'null-store': { type: 'boolean' },
    'no-reuse': { type: 'boolean' },
    'no-answers': { type: 'boolean' },
    'answers-after': { type: 'boolean' },
    days: { type: 'string' },
    skip: { type: 'string' },
    'cache-mb': { type: 'string' },
    every: { type: 'string' },
    'snapshot-over': { type: 'string' },
    'default-heap': { type: 'boolean' },
    feed: { type: 'boolean' },
    insert: { type: 'string' },
    change: { type: 'string' },
  },
  args: process.argv.slice(2).filter((a) => a !== '--'),
  strict: false,
});

/** A small deterministic random sequence (the same look-ups in every round). */
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

const p50 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A store that hashes what it is given and keeps nothing (`--null-store`: the build's CPU and memory alone). */
function nullStore(core) {
  const refs = new Map();
  return {
    get: async () => undefined,
    meta: async () => undefined,
    has: async () => false,
    put: async (bytes, o) => ({ meta: core.newObjectMetadata(bytes, o, 0), created: true }),
    list: async () => ({ items: [], next: null }),
    readRef: async (name) => refs.get(name),
    writeRef: async (name, value) => void refs.set(name, value),
  };
}

async function build(n, dir) {
  // as `hub index build` sets it (BUILD_HEAP_GROWING_PERCENT, apps/node-server/src/heap-growth.ts): the old
  // generation grows to 1.25× what survives
  if (!values['default-heap']) (await import('node:v8')).setFlagsFromString('--heap-growing-percent=25');
  const testing = await import(dist('packages/core-index/dist/testing/index.js'));
  const core = await import(dist('packages/core-index/dist/index.js'));
  const { FsObjectStore } = await import(dist('packages/objects/dist/node/index.js'));
  const nodeServer = await import(dist('apps/node-server/dist/index.js'));
  // BLAKE3 as `hub index build` hashes (blake3-wasm, apps/node-server/src/blake3-node.ts), unless --pure-blake3.
  if (!values['pure-blake3']) nodeServer.installFastBlake3();
  const inner = values['null-store'] ? nullStore(core) : new FsObjectStore(dir);
  let created = 0;
  const store = Object.assign(Object.create(inner), {
    put: async (bytes, o) => {
      const r = await inner.put(bytes, o);
      if (r.created) created++;
      return r;
    },
  });
  let read = 0;
  const snapshotOver = values['snapshot-over'] ? Number(values['snapshot-over']) : undefined;
  const sampler = peakSampler(() => read, { snapshotOver, snapshotFile: path.join(os.tmpdir(), `scale-${process.pid}.heapsnapshot`) });
  // Day 1 (the 28th) into the folder; with --days 3, day 2 with every hundredth model changed and day 3 unchanged.
  const days = [];
  const changedEvery = [0, 100, 100];
  for (let j = Number(values.skip ?? 0); j < Number(values.days ?? 1); j++) {
    const [d, every] = [28 + j, changedEvery[j]];
    // --feed: as a change feed gives a day, a model the day before had the same way comes as its id alone
    // (`UnchangedModelInput`), its input made only if the build asks for it
    const before = j > 0 ? changedEvery[j - 1] : undefined;
    const changedOn = (e, i) => Boolean(e) && i % e === 7;
    const gap = j > 0 && values.insert ? Math.floor(n / Number(values.insert)) : 0;
    function* models() {
      for (let i = 0; i < n; ) {
        const k = i;
        if (gap && k % gap === gap >> 1) yield modelOf(n + k, 2 * n); // a model new since day 1 (SYNTHETIC)
        const made = () => (changedOn(every, k) ? changedModel(k, n, values.change) : modelOf(k, n));
        yield values.feed && before !== undefined && changedOn(before, k) === changedOn(every, k) ? { id: idOf(k), input: made } : made();
        // progress on stderr (the one result line stays the only stdout)
        read = ++i;
        if (i % (values.every ? Number(values.every) : 100_000) === 0) {
          console.error(`${i} models read, ${((performance.now() - t0) / i).toFixed(3)} ms per model, ${memoryLine()}`);
        }
      }
    }
    created = 0;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    // The made answers `hub index build` writes for a day served from its pages, made as the build writes its models
    // pages (apps/node-server made-answers-build.ts, on worker threads; their CPU is in the process's), and finished
    // after it (`answersTail`). --answers-after: the build without them, then the pass over the built day by
    // `hub index answers` in a child process (as `hub index build` did before; it also re-hashes the pages it reads),
    // its wall and CPU time and peak RSS apart and added into the day's totals (`withAnswers`). --no-answers: neither.
    const noAnswers = values['no-answers'] || values['null-store'];
    const along =
      noAnswers || values['answers-after'] ? undefined : new nodeServer.MadeAnswersAlongBuild(inner, dir, { indexStore: 'paged' });
    // The models are made one at a time as the builder reads them (nothing held, as a real input streams).
    const stamp = (day) => `SYNTHETIC ${n} models, 2026-11-${day}`;
    const built = await testing.buildWithPages(store, models(), `2026-11-${d}`, {
      reuse: !values['no-reuse'],
      ...(values.feed ? { stamp: () => stamp(d), ...(j > 0 ? { since: stamp(d - 1) } : {}) } : {}),
      ...(along ? { onModelsPage: along.onModelsPage } : {}),
    });
    const builtMs = performance.now() - t0;
    if (along) await along.finish(built.catalog);
    const ms = performance.now() - t0;
    // the CPU time of the process (user and system, the thread pool's and the workers' too): on a shared machine,
    // what the day cost whatever else ran
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = Math.round((cpu.user + cpu.system) / 1000);
    const answers = noAnswers || along ? undefined : madeAnswers(dir);
    days.push({
      date: `2026-11-${d}`,
      changedEvery: every,
      buildMs: Math.round(ms),
      cpuMs,
      msPerModel: +(ms / n).toFixed(3),
      ...(along ? { answersAlong: true, answersTailMs: Math.round(ms - builtMs) } : {}),
      created,
      ...built,
      ...(answers
        ? {
            answers,
            withAnswers: {
              ms: Math.round(ms) + answers.ms,
              cpuMs: cpuMs + answers.cpuMs,
              msPerModel: +((ms + answers.ms) / n).toFixed(3),
            },
          }
        : {}),
    });
  }
  return {
    n,
    ...days[0],
    ...(days.length > 1 ? { days } : {}),
    ...sampler.stop(),
    // the kernel's peak resident set of this process (not sampled): the figure the "peak RSS" is held to
    maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
  };
}

/** `hub index answers --data DIR` under GNU time: wall ms, CPU ms, peak RSS MB, and what it wrote. */
function madeAnswers(dir) {
  const t0 = performance.now();
  const cli = dist('apps/node-server/dist/cli.js');
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %U %S %M', process.execPath, cli, 'index', 'answers', '--data', dir], {
    env: { ...process.env, HUB_LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  if (r.status !== 0) throw new Error(`hub index answers failed: ${r.stderr.slice(-500)}`);
  const ms = Math.round(performance.now() - t0);
  const [user, sys, maxKb] = (/TIME (\S+) (\S+) (\d+)/.exec(r.stderr) ?? []).slice(1).map(Number);
  const written = JSON.parse(r.stdout.trim().split('\n').at(-1));
  return {
    ms,
    cpuMs: Math.round((user + sys) * 1000),
    maxRssMB: Math.round(maxKb / 1024),
    records: written.records,
    copied: written.copied,
    bytes: written.bytes,
  };
}

async function serve(n, dir, kind) {
  const t0 = performance.now();
  const core = await import(dist('packages/core-index/dist/index.js'));
  const testing = await import(dist('packages/core-index/dist/testing/index.js'));
  const { openDay } = await import(dist('packages/hub/dist/index.js'));
  const { FsObjectStore } = await import(dist('packages/objects/dist/node/index.js'));
  const store = new testing.CountingObjectStore(new FsObjectStore(dir));
  const imported = performance.now() - t0;
  const t0open = performance.now();
  const catalog = await store.readRef('current');
  // node-server trusts a day it built (verified once when written): pages are not re-hashed on read
  const index = await openDay(store, catalog, kind, () => core.loadIndex(store, catalog, { verified: true }), {
    verify: false,
    ...(values['cache-mb'] ? { cacheBytes: Number(values['cache-mb']) * 2 ** 20 } : {}),
  });
  const first = await index.model(idOf(Math.floor(n / 2)));
  const firstAnswerMs = performance.now() - t0open;
  if (!first) throw new Error('the first look-up found nothing');
  const startReads = store.reads;
  // Reads per request, each on a model not asked before (cold for its pages).
  const cold = async (fn) => {
    store.reset();
    await fn();
    return store.reads;
  };
  const r = rng(42);
  const pick = () => Math.floor(r() * n);
  const reads = {
    lookup: await cold(() => index.model(idOf(pick()))),
    resolve: await cold(async () => (await index.model(idOf(pick())))?.file('config.json')),
    blobByDigest: await cold(async () => {
      const m = await index.model(idOf(pick()));
      store.reset();
      await index.filesBySha256(m.files[2].sha256);
    }),
    searchOne: await cold(() => index.search({ search: idOf(pick()) }, 0, 20)),
    lastPage: await cold(() => index.search({}, n - 50, 50)),
  };
  // 20,000 random look-ups.
  const t1 = performance.now();
  for (let k = 0; k < 20_000; k++) await index.model(idOf(pick()));
  const lookupsPerSecond = Math.round(20_000 / ((performance.now() - t1) / 1000));
  // A search that matches one model, p50 of 200.
  const times = [];
  for (let k = 0; k < 200; k++) {
    const id = idOf(pick());
    const s = performance.now();
    const page = await index.search({ search: id }, 0, 20);
    times.push(performance.now() - s);
    // a whole id matches that model (and, rarely, a longer id holding it)
    if (!page.models.some((m) => m.id === id)) throw new Error(`a search for ${id} did not find it`);
  }
  // The first and the last page of the browse list (50 a page), p50 of 30 each, cold pages.
  const pageTimes = async (from) => {
    const out = [];
    for (let k = 0; k < 30; k++) {
      const s = performance.now();
      await index.search({}, from(k), 50);
      out.push(performance.now() - s);
    }
    return p50(out);
  };
  const firstPageMs = await pageTimes((k) => k * 50);
  const lastPageMs = await pageTimes((k) => n - 50 * (k + 1));
  if (global.gc) global.gc();
  return {
    n,
    store: kind,
    importMs: Math.round(imported),
    firstAnswerMs: +firstAnswerMs.toFixed(1),
    startReads,
    reads,
    lookupsPerSecond,
    searchOneP50Ms: +p50(times).toFixed(3),
    firstPageMs: +firstPageMs.toFixed(3),
    lastPageMs: +lastPageMs.toFixed(3),
    rssMB: Math.round(process.memoryUsage().rss / 2 ** 20),
  };
}

if (values.phase === 'build') {
  console.log(JSON.stringify(await build(Number(values.n), values.dir)));
  process.exit(0);
}
if (values.phase === 'days') {
  // A day on which few models changed, against a full build, in the same run: each round builds --days 3 (day 1 full,
  // day 2 with 1 % changed, day 3 unchanged) into a fresh folder twice, reusing the build memo and not (--no-reuse),
  // in alternating order, and checks that both give the same catalog and pages addresses every day.
  const n = String(values.n ?? 10000);
  const rounds = Number(values.rounds);
  const base = values.keep ?? path.join(os.tmpdir(), 'hub-bench-days');
  const rows = [];
  for (let round = 1; round <= rounds; round++) {
    const out = {};
    for (const mode of round % 2 ? ['reuse', 'full'] : ['full', 'reuse']) {
      const dir = path.join(base, `r${round}-${mode}`);
      rmSync(dir, { recursive: true, force: true });
      out[mode] = JSON.parse(
        execFileSync(
          process.execPath,
          [
            path.join(root, 'bench/scale.mjs'),
            '--phase',
            'build',
            '--n',
            n,
            '--dir',
            dir,
            '--days',
            '3',
            ...(mode === 'full' ? ['--no-reuse'] : []),
          ],
          { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
        ).trim(),
      );
      rmSync(dir, { recursive: true, force: true });
    }
    const [r, f] = [out.reuse.days, out.full.days];
    for (let d = 0; d < 3; d++)
      if (r[d].catalog !== f[d].catalog || r[d].pages !== f[d].pages) throw new Error(`round ${round} day ${d + 1}: reuse and full differ`);
    const row = {
      round,
      fullMs: r[0].buildMs,
      changedMs: r[1].buildMs,
      unchangedMs: r[2].buildMs,
      changedRatio: +(r[1].buildMs / r[0].buildMs).toFixed(3),
      unchangedRatio: +(r[2].buildMs / r[0].buildMs).toFixed(3),
      cpuMs: r.map((d) => d.cpuMs),
      changedCpuRatio: +(r[1].cpuMs / r[0].cpuMs).toFixed(3),
      unchangedCpuRatio: +(r[2].cpuMs / r[0].cpuMs).toFixed(3),
      noReuse: { fullMs: f[0].buildMs, changedMs: f[1].buildMs, unchangedMs: f[2].buildMs, cpuMs: f.map((d) => d.cpuMs) },
      created: r.map((d) => d.created),
      peakRssMB: out.reuse.maxRssMB,
      noReusePeakRssMB: out.full.maxRssMB,
    };
    rows.push(row);
    console.log(JSON.stringify(row));
  }
  const spread = (k) => {
    const xs = rows.map((x) => x[k]).sort((a, b) => a - b);
    return `${k} median ${xs[Math.floor(xs.length / 2)]} (${xs[0]}–${xs[xs.length - 1]})`;
  };
  const keys = ['changedRatio', 'unchangedRatio', 'changedCpuRatio', 'unchangedCpuRatio', 'fullMs', 'changedMs', 'unchangedMs'];
  console.log(`n=${n}: ${keys.map(spread).join('; ')}`);
  process.exit(0);
}
if (values.phase === 'serve') {
  console.log(JSON.stringify(await serve(Number(values.n), values.dir, values.store)));
  process.exit(0);
}

const keep = values.keep ?? path.join(os.tmpdir(), 'hub-bench-scale');
mkdirSync(keep, { recursive: true });
const child = (args) =>
  JSON.parse(
    execFileSync(process.execPath, ['--max-old-space-size=8192', path.join(root, 'bench/scale.mjs'), ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 1 << 20,
    }).trim(),
  );
const folder = (n) => {
  const dir = path.join(keep, `n${n}`);
  if (!existsSync(path.join(dir, 'refs', 'current')) && !existsSync(path.join(dir, 'current'))) {
    const built = child(['--phase', 'build', '--n', String(n), '--dir', dir]);
    console.log(`built ${n}: ${JSON.stringify(built)}`);
  }
  return dir;
};
const sizes = values.sizes.split(',').map(Number);
const yard = folder(2000);
console.log('Measured on a machine shared with other sessions: figures are medians of rounds, spread given.');
for (let round = 1; round <= Number(values.rounds); round++) {
  // The yardstick first in every round: the whole store at 2,000 models.
  const y = child(['--phase', 'serve', '--n', '2000', '--dir', yard, '--store', 'memory']);
  console.log(`round ${round} yardstick ${JSON.stringify(y)}`);
  for (const n of sizes) {
    const s = child(['--phase', 'serve', '--n', String(n), '--dir', folder(n), '--store', 'paged']);
    console.log(
      `round ${round} n=${n} ${JSON.stringify(s)} lookups ratio to 2,000 whole: ${(s.lookupsPerSecond / y.lookupsPerSecond).toFixed(2)}`,
    );
  }
}
