#!/usr/bin/env node
// `hub get` against what a user would do instead, on one 200 MiB SYNTHETIC file served by nginx (Debian nginx-light,
// `sendfile on`, its own conf and prefix in a temp folder on 127.0.0.1, stopped by its pid) through a real hub
// (`hub index build --from-dir` of the file with nginx as its source, then `hub serve`). Not a test: run by
// `pnpm bench --client` (or `node bench/client.mjs`). Needs the build (apps/node-server/dist) and nginx.
// Usage: node bench/client.mjs [--mib 200] [--rounds 5] [--prof DIR]
// Each round runs, in alternating order:
//   hub get           `hub get bench/model --to DIR` (since issue 42 a file this large is fetched in ranges, written
//                     in place, hashed in order as the prefix completes; more connections only when they bring more)
//   hub get, thread   `hub get --connections 1` (one request, as before issue 42) with HUB_HASH_THREAD=1 (SHA-256
//                     of the one stream in a worker thread), to show what a thread brings there
//   curl + sha256sum  `curl -sfL -o FILE URL && sha256sum FILE` of the hub's resolve URL (download first, hash after)
//   @huggingface/hub  `downloadFileToCacheDir` of the same file from the same hub (no hash check)
//   curl /dev/null    `curl -sfL -o /dev/null URL` (the transfer alone: the floor of any verified download)
//   hub get's start   `hub get` against a closed port: Node, the CLI and its imports, up to its first request
// and prints the medians, the ratios per round and their spread, and the source `hub get` reported.
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cli, freePort, median, needTools, startHub, startNginx, stopAll, syntheticModel, timed } from './client-setup.mjs';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--client' && a !== '--'),
  options: { mib: { type: 'string', default: '200' }, rounds: { type: 'string', default: '5' }, prof: { type: 'string' } },
});
const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const SIZE = Number(values.mib) * 1024 * 1024;
const ROUNDS = Number(values.rounds);

needTools([['nginx', 'nginx-light']]);
const { work, tree, sha } = syntheticModel('bench-client-', SIZE);
// A real hub over the file: indexed from the tree with nginx as its one source.
const nginx = await startNginx(work, tree, 'nginx');
const { url: hubUrl, resolve: resolveUrl } = await startHub(work, tree, 'one', [nginx]);
const first = await fetch(resolveUrl, { redirect: 'manual' });
if (first.status !== 302) throw new Error(`resolve answered ${first.status}`);

const out = path.join(work, 'out');
mkdirSync(out, { recursive: true });
const hfScript = `
import { downloadFileToCacheDir } from '@huggingface/hub';
const p = await downloadFileToCacheDir({ repo: 'bench/model', path: 'model.bin', hubUrl: ${JSON.stringify(hubUrl)}, cacheDir: ${JSON.stringify(path.join(out, 'hf'))} });
if (!p) process.exit(1);
`;
const runs = { get: [], getThread: [], curlSha: [], hf: [], curlNull: [], getStart: [] };
const closedPort = await freePort();
let reported = '';
for (let r = 0; r < ROUNDS; r++) {
  // alternate which goes first, so none always meets the warmer (or busier) machine
  const order =
    r % 2 === 0
      ? ['get', 'curlSha', 'hf', 'getThread', 'curlNull', 'getStart']
      : ['getStart', 'curlNull', 'getThread', 'hf', 'curlSha', 'get'];
  for (const which of order) {
    if (which === 'get' || which === 'getThread') {
      const prof = values.prof ? ['--cpu-prof', '--cpu-prof-dir', values.prof] : [];
      // getThread: the same command hashing in a worker thread (HUB_HASH_THREAD=1), to show what the thread brings
      const one = which === 'getThread' ? ['--connections', '1'] : [];
      const res = await timed(
        process.execPath,
        [...prof, cli, 'get', 'bench/model', '--hub', hubUrl, '--to', path.join(out, 'get'), ...one],
        {
          env: { ...process.env, HUB_LOG_LEVEL: 'warn', ...(which === 'getThread' ? { HUB_HASH_THREAD: '1' } : {}) },
        },
      );
      runs[which].push(res.seconds);
      // the file event on stdout (not a terminal) names the source that served the verified bytes
      for (const line of res.stdout.split('\n')) if (line.includes('"event":"file"')) reported = JSON.parse(line).source ?? reported;
    } else if (which === 'getStart') {
      // exits 1 when its first request is refused: what every `hub get` pays before it asks the hub anything
      const t0 = process.hrtime.bigint();
      const err = await new Promise((resolve) =>
        execFile(
          process.execPath,
          [cli, 'get', 'bench/model', '--hub', `http://127.0.0.1:${closedPort}`, '--to', path.join(out, 'start')],
          resolve,
        ),
      );
      if (err?.code !== 1 || !/ECONNREFUSED/.test(err.stderr ?? String(err))) throw new Error(`hub get's start: ${err}`);
      runs.getStart.push(Number(process.hrtime.bigint() - t0) / 1e9);
    } else if (which === 'curlSha') {
      const target = path.join(out, 'curl.bin');
      const res = await timed('sh', ['-c', `curl -sfL -o '${target}' '${resolveUrl}' && sha256sum '${target}'`]);
      if (!res.stdout.startsWith(sha)) throw new Error(`sha256sum: ${res.stdout}`);
      runs.curlSha.push(res.seconds);
    } else if (which === 'hf') {
      runs.hf.push((await timed(process.execPath, ['--input-type=module', '-e', hfScript], { cwd: root })).seconds);
    } else {
      runs.curlNull.push((await timed('curl', ['-sfL', '-o', '/dev/null', resolveUrl])).seconds);
    }
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
  }
}
stopAll();
await new Promise((r) => setTimeout(r, 200));
rmSync(work, { recursive: true, force: true });

const fmt = (a) => `median ${median(a).toFixed(3)} s (${a.map((s) => s.toFixed(2)).join(', ')})`;
const ratio = (other) => {
  const per = runs.get.map((g, i) => other[i] / g);
  return `${(median(other) / median(runs.get)).toFixed(2)} (per round ${Math.min(...per).toFixed(2)}–${Math.max(...per).toFixed(2)})`;
};
console.log(
  `file: ${values.mib} MiB SYNTHETIC from nginx (sendfile on) through hub serve, ${ROUNDS} alternating rounds; load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(`hub get:                       ${fmt(runs.get)}; reported source: ${reported}`);
console.log(`hub get --connections 1, hash in a worker thread (HUB_HASH_THREAD=1): ${fmt(runs.getThread)}`);
console.log(`curl -o FILE && sha256sum FILE: ${fmt(runs.curlSha)}`);
console.log(`@huggingface/hub downloadFileToCacheDir: ${fmt(runs.hf)}`);
console.log(`curl -o /dev/null:             ${fmt(runs.curlNull)}`);
console.log(`hub get's start (to its first request, refused): ${fmt(runs.getStart)}`);
console.log(`hub get speed / (curl && sha256sum): ${ratio(runs.curlSha)}   target >= 1.0`);
console.log(`hub get speed / @huggingface/hub:    ${ratio(runs.hf)}   target >= 1.5`);
console.log(`hub get speed / hub get hashing in a worker thread: ${ratio(runs.getThread)}`);
