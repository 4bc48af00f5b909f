// pnpm bench --scale --http: the hub over HTTP (node-server, one process) on SYNTHETIC indexes of N models built by
// bench/scale.mjs (its --keep folders), paged, against the whole store at 2,000 models as the yardstick, in one run.
// Per size: the first start (spawn to the first /api/models/{id} answer), random /api/models/{id} look-ups a second
// (wrk -c50 with bench/random-models.lua; ratio to the yardstick's, per round), a search matching one model (p50 of
// 200), the first and the last page of /api/models?limit=500 reached by following Link, and the resident memory after
// at least 20,000 random look-ups and --minutes of the hot routes (bench/hot-routes.lua), before the searches and the
// walk (rssMB), and again at the end (rssEndMB). Beside the uniform look-ups, skewed ones (bench/random-models.lua with SKEW=1: the
// k-th most asked model asked about 1/k as often, as traffic to a model host is), a second of them per round.
// Usage: node bench/scale-http.mjs --sizes 100000 [--keep DIR] [--rounds 3] [--duration 5] [--minutes 1]
//        [--dir-of N=DIR ...] (a data folder for size N built elsewhere, e.g. 1000000=/tmp/scale-1m) [--cold-pages] [--pairs 4]
// Each round first measures the random look-ups of each size against the yardstick's with both hubs alive, in --pairs
// alternating bursts (0: not), the figure that least depends on how fast this machine is at that minute; then each
// hub alone as above.
// Before a paged size is measured, every file of its day's index pages (and its made answers) is read once, so the operating system's page
// cache holds them (the steady state of a server with the memory for it; a page file read cold from this machine's
// disk took about 200 µs against 10-20 µs cached); --cold-pages skips that.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { idOf } from './synthetic-ids.mjs';

const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const { values } = parseArgs({
  options: {
    scale: { type: 'boolean' },
    http: { type: 'boolean' },
    sizes: { type: 'string', default: '100000' },
    keep: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '5' },
    minutes: { type: 'string', default: '1' },
    'dir-of': { type: 'string', multiple: true, default: [] },
    'cold-pages': { type: 'boolean' },
    pairs: { type: 'string', default: '4' },
  },
  args: process.argv.slice(2).filter((a) => a !== '--'),
  strict: false,
});
const keep = values.keep ?? path.join(os.tmpdir(), 'hub-bench-scale');
const dirOf = new Map(values['dir-of'].map((s) => s.split('=')).map(([n, d]) => [Number(n), d]));
const folder = (n) => dirOf.get(n) ?? path.join(keep, `n${n}`);
const scratch = mkdtempSync(path.join(os.tmpdir(), 'hub-scale-http-'));
// The SYNTHETIC models name two sources; their URLs are never fetched (a resolve answers a redirect).
const config = path.join(scratch, 'config.json');
const source = (name) => ({ name, display: name, token: name, kind: 'http', url: 'http://localhost:9/{id}/resolve/{revision}/{path}' });
writeFileSync(config, JSON.stringify({ demo: false, sources: [source('mirror-a'), source('mirror-b')], order: ['mirror-a', 'mirror-b'] }));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const PORT = 18390;
const base = `http://127.0.0.1:${PORT}`;

async function startHub(dir, store, port = PORT) {
  const base = `http://127.0.0.1:${port}`;
  const t = performance.now();
  const child = spawn(
    process.execPath,
    ['apps/node-server/dist/cli.js', 'serve', '--port', String(port), '--host', '127.0.0.1', '--data', dir, '--config', config],
    {
      cwd: root,
      env: { ...process.env, HUB_LOG_LEVEL: 'warn', HUB_INDEX_STORE: store },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const probe = `${base}/api/models/${idOf(1)}`;
  for (;;) {
    try {
      const res = await fetch(probe);
      if (res.status === 200) break;
      throw new Error(`the hub answered ${res.status}`);
    } catch (e) {
      if (e.message.startsWith('the hub')) throw e;
      if (child.exitCode !== null) throw new Error(`the hub on ${dir} exited ${child.exitCode}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  return { child, startMs: performance.now() - t };
}

const stop = (child) =>
  new Promise((r) => {
    if (child.exitCode !== null) return r();
    child.once('exit', r);
    child.kill('SIGTERM');
  });
/**
 * The share of a file in the page cache, in per cent (`fincore`), or undefined without it: a made answer whose record is
 * not there waits for the disk, and this machine's kernel pages out what was not read for some minutes (DAMON
 * reclaim), so the look-ups' figures are printed with the state the file was in.
 */
function residentPercent(file) {
  if (!existsSync(file)) return undefined;
  try {
    const [res, size] = execFileSync('fincore', ['--bytes', '--noheadings', '--output', 'RES,SIZE', file], { encoding: 'utf8' })
      .trim()
      .split(/\s+/)
      .map(Number);
    return size ? Math.round((100 * res) / size) : undefined;
  } catch {
    return undefined;
  }
}

const rssMB = (pid) => Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024;

/** The environment of skewed look-ups (bench/random-models.lua). */
const SKEWED = { SKEW: '1' };

function wrk(script, n, seconds, url = base, env = {}) {
  const out = execFileSync('wrk', ['-t1', '-c50', `-d${seconds}s`, '-s', path.join(root, 'bench', script), url], {
    encoding: 'utf8',
    env: { ...process.env, N: String(n), ...env },
  });
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  if (non2xx > 0 && script === 'random-models.lua') throw new Error(`${non2xx} look-ups did not answer 200`);
  return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0), requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0) };
}

async function timed(url) {
  const t = performance.now();
  const res = await fetch(url);
  const body = await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return { ms: performance.now() - t, res, bytes: body.byteLength };
}

/** The browse list followed by Link to its end, 1,000 a page: the first and the last page's time. */
async function followLinks() {
  let url = `${base}/api/models?limit=500`;
  const times = [];
  while (url) {
    const { ms, res } = await timed(url);
    times.push(ms);
    const next = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
    url = next ? new URL(next, base).href : undefined;
  }
  return { pages: times.length, firstMs: times[0], lastMs: times[times.length - 1], medianMs: median(times) };
}

/** Read every page file of the day once (the root, every list's pages and directories, postings segments). */
async function warmPages(dir) {
  const { FsObjectStore } = await import(path.join(root, 'packages/objects/dist/node/index.js'));
  const store = new FsObjectStore(dir);
  const archive = JSON.parse(await store.readRef('archive'));
  const pagesRoot = archive.days[0].pages;
  const read = (a) => JSON.parse(new TextDecoder().decode(store.readBytes(a)));
  const rootPage = read(pagesRoot);
  const t = performance.now();
  let files = 1;
  const list = (l, each) => {
    const pages =
      l.pages ??
      (l.dirs ?? []).flatMap((d) => {
        files++;
        return read(d).pages;
      });
    for (const a of pages) {
      files++;
      const page = read(a);
      each?.(page);
    }
  };
  for (const l of [rootPage.models, rootPage.ids, rootPage.shas, rootPage.names, ...Object.values(rootPage.orders)]) list(l);
  list(rootPage.terms, (page) => {
    for (const p of Object.values(page.entries))
      for (const seg of p.s ?? []) {
        files++;
        store.readBytes(seg);
      }
  });
  // the made answers of the cold look-ups (apps/node-server made-answers-file.ts), when the folder has them
  const made = path.join(dir, 'made-answers');
  if (existsSync(made)) {
    readFileSync(made);
    files++;
  }
  return { files, seconds: +((performance.now() - t) / 1000).toFixed(1) };
}

async function measure(n, store, rounds) {
  const warmed = store === 'paged' && !values['cold-pages'] ? await warmPages(folder(n)) : undefined;
  const { child, startMs } = await startHub(folder(n), store);
  try {
    const made = path.join(folder(n), 'made-answers');
    const madeResident = [residentPercent(made)];
    let lookups = wrk('random-models.lua', n, 2).requests; // warm-up
    const rps = [];
    for (let r = 0; r < rounds; r++) {
      const got = wrk('random-models.lua', n, Number(values.duration));
      rps.push(got.rps);
      lookups += got.requests;
    }
    madeResident.push(residentPercent(made));
    wrk('random-models.lua', n, 2, base, SKEWED); // warm-up
    const skewedRps = [];
    for (let r = 0; r < rounds; r++) skewedRps.push(wrk('random-models.lua', n, Number(values.duration), base, SKEWED).rps);
    // The memory figure: after at least 20,000 random look-ups and --minutes of the hot routes, measured
    // before the searches and the walk of every browse page below (rssEndMB, after them, is reported beside it).
    while (lookups < 20_000) lookups += wrk('random-models.lua', n, 2).requests;
    const hot = store === 'paged' ? wrk('hot-routes.lua', n, Math.round(Number(values.minutes) * 60)) : undefined;
    const rssMBAfterLoad = Math.round(rssMB(child.pid));
    const search = [];
    for (let k = 0; k < 200; k++)
      search.push((await timed(`${base}/api/models?search=${encodeURIComponent(idOf((k * 7919) % n))}&limit=20`)).ms);
    const links = n <= 1_000_000 ? await followLinks() : undefined;
    return {
      n,
      store,
      ...(warmed ? { warmedPages: warmed } : {}),
      startMs: Math.round(startMs),
      rps,
      ...(madeResident[0] === undefined ? {} : { madeResidentPercent: madeResident }),
      skewedRps,
      lookups,
      hotRps: hot?.rps,
      rssMB: rssMBAfterLoad,
      searchP50Ms: +median(search).toFixed(2),
      links,
      rssEndMB: Math.round(rssMB(child.pid)),
    };
  } finally {
    await stop(child);
  }
}

/**
 * Random look-ups of size `n` (paged) and of the yardstick (2,000, whole) with both hubs alive at once, in `pairs`
 * alternating bursts of --duration seconds (yardstick first, then the size, then the other way round): the ratio of
 * each pair, so a machine whose speed drifts over minutes (this one's does: rounds minutes apart differed by half)
 * weighs on both sides of a ratio alike. Each hub is given 2 s of look-ups first.
 */
async function pairedLookups(n, pairs) {
  const warmed = values['cold-pages'] ? undefined : await warmPages(folder(n));
  const y = await startHub(folder(2000), 'memory', PORT + 1);
  let s;
  try {
    s = await startHub(folder(n), 'paged', PORT);
    const yUrl = `http://127.0.0.1:${PORT + 1}`;
    wrk('random-models.lua', 2000, 2, yUrl);
    wrk('random-models.lua', n, 2);
    const ratios = [];
    for (let k = 0; k < pairs; k++) {
      const order = k % 2 === 0 ? ['y', 's'] : ['s', 'y'];
      const got = {};
      for (const side of order)
        got[side] =
          side === 'y'
            ? wrk('random-models.lua', 2000, Number(values.duration), yUrl).rps
            : wrk('random-models.lua', n, Number(values.duration)).rps;
      ratios.push(+(got.s / got.y).toFixed(2));
    }
    return { n, ...(warmed ? { warmedPages: warmed } : {}), pairs: ratios, median: median(ratios) };
  } finally {
    if (s) await stop(s.child);
    await stop(y.child);
  }
}

const sizes = values.sizes.split(',').map(Number);
const rounds = Number(values.rounds);
console.log(
  `hub over HTTP at scale: ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
for (let round = 1; round <= rounds; round++) {
  for (const n of sizes)
    if (values.pairs !== '0')
      console.log(
        `round ${round} paired look-ups n=${n} against 2,000 whole: ${JSON.stringify(await pairedLookups(n, Number(values.pairs)))}`,
      );
  const y = await measure(2000, 'memory', 1);
  console.log(`round ${round} yardstick ${JSON.stringify(y)}`);
  for (const n of sizes) {
    const s = await measure(n, 'paged', 1);
    console.log(
      `round ${round} n=${n} ${JSON.stringify(s)} look-ups ratio to 2,000 whole: ${(s.rps[0] / y.rps[0]).toFixed(2)}, skewed: ${(s.skewedRps[0] / y.skewedRps[0]).toFixed(2)}`,
    );
  }
}
