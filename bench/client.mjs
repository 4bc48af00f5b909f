#!/usr/bin/env node
// `hub get` (download + SHA-256 while it arrives + temp file + rename) against `curl -o /dev/null` of the same
// URL, both from one loopback source. Not a test: run by `pnpm bench --client` (or `node bench/client.mjs`).
// Usage: node bench/client.mjs [--mib 200] [--rounds 5]   (needs the build: apps/node-server/dist/cli.js, packages/client/dist)
// Besides the CLI against curl (to /dev/null and to a file), it runs the library alone (no CLI start-up) with
// the node:http and the fetch transport, to show where the time goes.
// The file is SYNTHETIC (a byte pattern); the hub here is a stand-in answering the routes `hub get` uses
// (model info, tree, health, the /via/ redirect), so only the client is measured.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--client' && a !== '--'),
  options: { mib: { type: 'string', default: '200' }, rounds: { type: 'string', default: '5' }, prof: { type: 'string' } },
});
const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const cli = path.join(root, 'apps', 'node-server', 'dist', 'cli.js');
const SIZE = Number(values.mib) * 1024 * 1024;
const ROUNDS = Number(values.rounds);
const data = Buffer.alloc(SIZE);
for (let i = 0; i < SIZE; i += 4096) data.fill((i / 4096) & 0xff, i, Math.min(SIZE, i + 4096));
const t0 = process.hrtime.bigint();
const sha = createHash('sha256').update(data).digest('hex');
const hashSeconds = Number(process.hrtime.bigint() - t0) / 1e9;

const listen = (handler) =>
  new Promise((resolve) => {
    const s = createServer(handler);
    s.listen(0, '127.0.0.1', () => resolve({ s, url: `http://127.0.0.1:${s.address().port}` }));
  });
const source = await listen((req, res) => {
  const m = /bytes=(\d+)-/.exec(req.headers.range ?? '');
  const start = m ? Number(m[1]) : 0;
  res.writeHead(m ? 206 : 200, { 'content-length': String(SIZE - start), 'content-type': 'application/octet-stream' });
  res.end(data.subarray(start));
});
const COMMIT = 'b'.repeat(40);
const hub = await listen((req, res) => {
  const u = new URL(req.url, 'http://x');
  const json = (v) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v));
  if (u.pathname === '/api/hub/health') return json({ order: ['bench'], sources: { bench: { ok: true, checked: null } } });
  if (u.pathname === '/api/models/bench/model') return json({ id: 'bench/model', sha: COMMIT });
  if (u.pathname.startsWith('/api/models/bench/model/tree/'))
    return json([{ type: 'file', path: 'model.bin', size: SIZE, oid: sha, lfs: { oid: sha, size: SIZE, pointerSize: 134 } }]);
  res.writeHead(302, { location: `${source.url}/model.bin`, 'x-hub-source': 'bench' }).end();
});

const url = `${hub.url}/via/bench/bench/model/resolve/${COMMIT}/model.bin`;
const dir = mkdtempSync(path.join(tmpdir(), 'bench-client-'));
const runs = { get: [], curl: [], curlFile: [], libNode: [], libFetch: [] };
// the library alone (no CLI start-up), same file sink and hasher, with each transport: where the time goes
const clientDist = path.join(root, 'packages', 'client', 'dist');
const libScript = (transport) => `
import { downloadFile } from ${JSON.stringify(path.join(clientDist, 'index.js'))};
import { fileSink, nodeGetBytes, nodeHasher } from ${JSON.stringify(path.join(clientDist, 'node', 'index.js'))};
const file = { path: 'model.bin', size: ${SIZE}, sha256: '${sha}' };
const sink = await fileSink(${JSON.stringify(path.join(dir, 'lib.bin'))});
const opts = { hub: '${hub.url}', hasher: nodeHasher, ${transport === 'node' ? 'getBytes: nodeGetBytes ' : ''}};
const r = await downloadFile(opts, 'bench/model', '${COMMIT}', file, sink, ['bench']);
await sink.commit(r.ok);
if (!r.ok) { console.error(JSON.stringify(r.attempts)); process.exit(1); }
`;
// the servers run in this process, so the measured commands run as children without blocking them
const child = (cmd, args) =>
  new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    execFile(cmd, args, { maxBuffer: 1 << 26 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${cmd} failed: ${stderr}${stdout}`)) : resolve(Number(process.hrtime.bigint() - t0) / 1e9),
    );
  });
for (let r = 0; r < ROUNDS; r++) {
  // alternate which goes first, so neither always meets the warmer machine
  const order = r % 2 === 0 ? ['get', 'curl', 'curlFile', 'libNode', 'libFetch'] : ['libFetch', 'libNode', 'curlFile', 'curl', 'get'];
  for (const which of order) {
    if (which === 'curl') runs.curl.push(await child('curl', ['-sfL', '-o', '/dev/null', url]));
    else if (which === 'curlFile') {
      // the same download written to a file, as hub get writes one
      runs.curlFile.push(await child('curl', ['-sfL', '-o', path.join(dir, 'curl.bin'), url]));
      rmSync(path.join(dir, 'curl.bin'), { force: true });
    } else if (which === 'libNode' || which === 'libFetch') {
      const t = which === 'libNode' ? 'node' : 'fetch';
      runs[which].push(await child(process.execPath, ['--input-type=module', '-e', libScript(t)]));
      rmSync(path.join(dir, 'lib.bin'), { force: true });
    } else {
      // --prof DIR: a CPU profile of each `hub get` run (node --cpu-prof) in DIR
      const prof = values.prof ? ['--cpu-prof', '--cpu-prof-dir', values.prof] : [];
      runs.get.push(await child(process.execPath, [...prof, cli, 'get', 'bench/model', '--hub', hub.url, '--to', dir]));
      rmSync(path.join(dir, 'model.bin'), { force: true });
    }
  }
}
hub.s.close();
source.s.close();
rmSync(dir, { recursive: true, force: true });
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const mibs = (s) => SIZE / 1048576 / s;
const ratios = runs.get.map((g, i) => (runs.curl[i] ?? 0) / g);
console.log(`file: ${values.mib} MiB SYNTHETIC, ${ROUNDS} alternating rounds`);
console.log(`node:crypto SHA-256 of the file in this process (once): ${mibs(hashSeconds).toFixed(0)} MiB/s`);
console.log(
  `curl -o /dev/null: median ${mibs(median(runs.curl)).toFixed(0)} MiB/s (${runs.curl.map((s) => mibs(s).toFixed(0)).join(', ')})`,
);
console.log(
  `curl -o FILE:      median ${mibs(median(runs.curlFile)).toFixed(0)} MiB/s (${runs.curlFile.map((s) => mibs(s).toFixed(0)).join(', ')})`,
);
console.log(`hub get:           median ${mibs(median(runs.get)).toFixed(0)} MiB/s (${runs.get.map((s) => mibs(s).toFixed(0)).join(', ')})`);
console.log(
  `library, node:http transport: median ${mibs(median(runs.libNode)).toFixed(0)} MiB/s (${runs.libNode.map((s) => mibs(s).toFixed(0)).join(', ')})`,
);
console.log(
  `library, fetch transport:     median ${mibs(median(runs.libFetch)).toFixed(0)} MiB/s (${runs.libFetch.map((s) => mibs(s).toFixed(0)).join(', ')})`,
);
console.log(
  `ratio hub get / curl: median ${(median(runs.curl) / median(runs.get)).toFixed(2)}, per round ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`,
);
const fileRatios = runs.get.map((g, i) => (runs.curlFile[i] ?? 0) / g);
console.log(
  `ratio hub get / curl -o FILE: median ${(median(runs.curlFile) / median(runs.get)).toFixed(2)}, per round ${Math.min(...fileRatios).toFixed(2)}–${Math.max(...fileRatios).toFixed(2)}`,
);
