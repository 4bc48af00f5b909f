// What the route machinery of createHub costs and keeps past a young collection, apart from any dialect: a one-line
// route (`GET /x`) and the 404 of a path no route claims, 100,000 requests a round through `hub.respond`, one at a
// time. Prints µs a request and the bytes each scavenge promoted to old space (V8's `--trace-gc-nvp`, this script
// run again as a child under it). A route's objects should die young: before 716ecb6 each context's getter gave it
// a hidden class of its own, and each scavenge promoted 4.8 MB (docs/benchmarks.md, 2026-11-29 15:20).
// Usage: node bench/route-gc.mjs   (build first)
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);
const root = path.join(path.dirname(here), '..');

if (process.argv[2] === '--child') {
  const { createHub, noMetrics } = await import(path.join(root, 'packages/core-index/dist/index.js'));
  const mode = process.argv[3];
  const routes = [
    {
      method: 'GET',
      path: '/x',
      errors: 'hub',
      rules: 'read',
      handler: () => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' }),
    },
  ];
  const settings = { publisherTokens: [], registryTokens: [], maxRequestBytes: 1, role: 'server', version: 'bench', serverId: 'bench' };
  const log = { info() {}, warn() {}, error() {}, debug() {} };
  const hub = createHub({ index: () => ({}), health: { version: () => 1 }, settings, log, metrics: noMetrics }, routes);
  const headers = { get: () => null };
  let k = 0;
  for (let round = 0; round < 3; round++) {
    const n = 100_000;
    const t = performance.now();
    for (let i = 0; i < n; i++) {
      const url = mode === '404' ? `http://h/nothing?_=${k++}` : `http://h/x?_=${k++}`;
      await hub.respond({ method: 'GET', url, headers, body: null });
    }
    console.log(`round ${round} ${(((performance.now() - t) * 1000) / n).toFixed(2)}`);
  }
} else {
  for (const mode of ['route', '404']) {
    const out = execFileSync(process.execPath, ['--trace-gc-nvp', here, '--child', mode], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
    const lines = out.split('\n');
    const last = lines
      .filter((l) => l.startsWith('round '))
      .at(-1)
      ?.split(' ')[2];
    // the scavenges of the last round (after the second round's line)
    const from = lines.findIndex((l) => l.startsWith('round 1'));
    const promoted = lines
      .slice(from)
      .filter((l) => l.includes('gc=s '))
      .map((l) => Number(/ promoted=(\d+)/.exec(l)?.[1] ?? 0));
    const mean = promoted.length ? promoted.reduce((a, b) => a + b, 0) / promoted.length : 0;
    console.log(`${mode}: ${last} µs a request, ${(mean / 2 ** 20).toFixed(2)} MB promoted a scavenge (${promoted.length} scavenges)`);
  }
}
