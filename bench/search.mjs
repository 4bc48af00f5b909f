#!/usr/bin/env node
// In-process micro-benchmark of `/api/models?search=…` against the plain `/api/models?limit=50` page, over a SYNTHETIC
// in-memory index shaped like `pnpm bench --models N` builds (owners bench-org-0…24, names model-N, four small files,
// the tree's sorted order, no upstream row facts). No sockets: each request goes through `hub.handle` with only the
// model-host dialect's routes, so the figures are the route's own cost (the HTTP server adds the same per request).
//
// Run after a build (`npx --yes pnpm@10 exec turbo run build --output-logs=errors-only`):
//   node bench/search.mjs [--models 10000,100000] [--rounds 5] [--ms 400] [--query model-12] [--cache off|on] [--http]
// `--http` serves the hub on loopback through node-server's own listener (hubListener) and loads it with wrk
// (-t1 -c8, `--ms` per run), to see the same ratio with the HTTP cost every request pays.
// `--cache off` (default) times the uncached search path: every request adds `&_=k` (ignored by the route, so the
// same answer) and no recent page is reused; the plain page gets the same `&_=k` (it stays the one prepared page), so
// both sides pay the same for the changing URL. `--cache on` repeats one URL each, as `pnpm bench` does.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createHub } from '../packages/core-index/dist/index.js';
import { createTestHub } from '../packages/core-index/dist/testing/index.js';
import { hfRoutes } from '../packages/dialect-hf/dist/index.js';

const { values } = parseArgs({
  options: {
    models: { type: 'string', default: '10000,100000' },
    rounds: { type: 'string', default: '5' },
    ms: { type: 'string', default: '400' },
    query: { type: 'string', default: 'model-12' },
    cache: { type: 'string', default: 'off' },
    http: { type: 'boolean', default: false },
  },
});
const SIZES = values.models.split(',').map(Number);
const ROUNDS = Number(values.rounds);
const MS = Number(values.ms);
const CACHE = values.cache === 'on';

/** SYNTHETIC models as bench/run.mjs writes them, in the order `hub index build --from-dir` lists them. */
function syntheticModels(n) {
  const ids = [];
  for (let i = 0; i < n; i++) ids.push({ owner: `bench-org-${i % 25}`, name: `model-${i}`, i });
  ids.sort((a, b) => (a.owner < b.owner ? -1 : a.owner > b.owner ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const hex = (k, len) => k.toString(16).padStart(len, '0');
  return ids.map(({ owner, name, i }) => ({
    id: `${owner}/${name}`,
    license: null,
    files: [
      { path: 'README.md', size: 40 + String(i).length, sha256: hex(4 * i + 1, 64) },
      { path: 'config.json', size: 50 + String(i).length, sha256: hex(4 * i + 2, 64) },
      { path: `model-${i}-Q4_K_M.gguf`, size: 17 + String(i).length, sha256: hex(4 * i + 3, 64) },
      { path: `model-${i}-Q8_0.gguf`, size: 15 + String(i).length, sha256: hex(4 * i + 4, 64) },
    ],
    facts: {},
    sources: [{ source: 'bench', type: 'http' }],
  }));
}

/** A GET of `path`; with `bust`, each request adds `&_=k` (a parameter the route ignores) so no cached page answers. */
function getter(hub, path, bust = false) {
  const req = {
    method: 'GET',
    url: `http://127.0.0.1:8080${path}`,
    headers: { get: () => null },
    body: null,
  };
  let k = 0;
  return async () => {
    if (bust) req.url = `http://127.0.0.1:8080${path}&_=${k++}`;
    const res = await hub.handle(req);
    if (res.status !== 200) throw new Error(`${path} → ${res.status}`);
    return res;
  };
}

/** Requests per second of `fn` over about `ms` milliseconds. */
async function rate(fn, ms) {
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    for (let k = 0; k < 20; k++) {
      await fn();
      n++;
    }
    t = performance.now();
  }
  return (n * 1000) / (t - t0);
}

/** Requests per second wrk measures over `ms` on `url`; with `bust`, each request adds `&_=k` as above. */
async function wrkRate(url, ms, bust) {
  const args = ['-t1', '-c8', `-d${Math.max(1, Math.round(ms / 1000))}s`];
  if (bust) {
    const script = path.join(os.tmpdir(), `search-bench-${process.pid}.lua`);
    writeFileSync(script, 'local k = 0\nrequest = function()\n  k = k + 1\n  return wrk.format(nil, wrk.path .. "&_=" .. k)\nend\n');
    args.push('-s', script);
  }
  const child = spawn('wrk', [...args, url], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  await new Promise((r) => child.once('exit', r));
  if (/Non-2xx/.test(out)) throw new Error(`wrk saw errors on ${url}:\n${out}`);
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1] };
};
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));

for (const n of SIZES) {
  const t0 = performance.now();
  const t = await createTestHub({
    models: syntheticModels(n),
    sources: [{ name: 'bench', display: 'Bench', token: 'bench', kind: 'http', url: 'http://localhost:9/{id}/resolve/{revision}/{path}' }],
    order: ['bench'],
  });
  const built = performance.now() - t0;
  const hub = createHub(t.deps, hfRoutes());
  const plainPath = '/api/models?limit=50';
  const searchPath = `/api/models?search=${encodeURIComponent(values.query)}&limit=50`;
  const plain = getter(hub, plainPath, !CACHE);
  const search = getter(hub, searchPath, !CACHE);
  const firstSearch = performance.now();
  const res = await search();
  const prepareMs = performance.now() - firstSearch;
  let server;
  let ratePlain = (ms) => rate(plain, ms);
  let rateSearch = (ms) => rate(search, ms);
  if (values.http) {
    const { hubListener } = await import('../apps/node-server/dist/index.js');
    server = createServer(
      hubListener(hub, (_req, r) => {
        r.statusCode = 404;
        r.end();
      }),
    );
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${server.address().port}`;
    ratePlain = (ms) => wrkRate(`${base}${plainPath}`, ms, !CACHE);
    rateSearch = (ms) => wrkRate(`${base}${searchPath}`, ms, !CACHE);
  }
  await plain();
  // warm-up
  await ratePlain(MS / 2);
  await rateSearch(MS / 2);
  const ratios = [];
  const plainRates = [];
  const searchRates = [];
  for (let r = 0; r < ROUNDS; r++) {
    const p = await ratePlain(MS);
    const s = await rateSearch(MS);
    plainRates.push(p);
    searchRates.push(s);
    ratios.push(s / p);
  }
  server?.close();
  const rows = JSON.parse(new TextDecoder().decode(res.body));
  const a = stats(plainRates);
  const b = stats(searchRates);
  const c = stats(ratios);
  console.log(
    `${n} SYNTHETIC models (built in ${(built / 1000).toFixed(1)} s; first search incl. preparing ${prepareMs.toFixed(0)} ms; ` +
      `"${values.query}" → ${rows.length} rows on page 1${res.headers.link ? ', more' : ''}; search cache ${CACHE ? 'on' : 'off'}; ` +
      `${values.http ? 'over HTTP: node:http + hubListener, wrk -t1 -c8' : 'in-process: hub.handle'})`,
  );
  const us = (x) => (1e6 / x).toFixed(1);
  console.log(`  plain  req/s min ${fmt(a.min)} median ${fmt(a.median)} max ${fmt(a.max)} (${us(a.median)} µs per request)`);
  console.log(`  search req/s min ${fmt(b.min)} median ${fmt(b.median)} max ${fmt(b.max)} (${us(b.median)} µs per request)`);
  console.log(`  ratio  search/plain min ${fmt(c.min)} median ${fmt(c.median)} max ${fmt(c.max)} (${ROUNDS} alternating rounds)`);
}
