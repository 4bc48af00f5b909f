#!/usr/bin/env node
// `hub get` against what a user would do instead, on one 200 MiB SYNTHETIC file served by nginx (Debian nginx-light,
// `sendfile on`, its own conf and prefix in a temp folder on 127.0.0.1, stopped by its pid) through a real hub
// (`hub index build --from-dir` of the file with nginx as its source, then `hub serve`). Not a test: run by
// `pnpm bench --client` (or `node bench/client.mjs`). Needs the build (apps/node-server/dist) and nginx.
// Usage: node bench/client.mjs [--mib 200] [--rounds 5] [--prof DIR]
// Each round runs, in alternating order:
//   hub get           `hub get bench/model --to DIR` (since issue 42 a file this large is fetched in ranges over 8
//                     connections, written in place, hashed in a worker thread as the prefix completes; rename)
//   hub get, thread   `hub get --connections 1` (one request, as before issue 42) with HUB_HASH_THREAD=1 (SHA-256
//                     of the one stream in a worker thread), to show what a thread brings there
//   curl + sha256sum  `curl -sfL -o FILE URL && sha256sum FILE` of the hub's resolve URL (download first, hash after)
//   @huggingface/hub  `downloadFileToCacheDir` of the same file from the same hub (no hash check)
//   curl /dev/null    `curl -sfL -o /dev/null URL` (the transfer alone: the floor of any verified download)
//   hub get's start   `hub get` against a closed port: Node, the CLI and its imports, up to its first request
// and prints the medians, the ratios per round and their spread, and the source `hub get` reported.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
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

try {
  execFileSync('nginx', ['-v'], { stdio: 'ignore' });
} catch {
  console.error('bench --client: nginx is needed (apt-get install -y nginx-light)');
  process.exit(2);
}

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const work = mkdtempSync(path.join(os.tmpdir(), 'bench-client-'));
const tree = path.join(work, 'tree');
const file = path.join(tree, 'bench', 'model', 'model.bin');
mkdirSync(path.dirname(file), { recursive: true });
// SYNTHETIC bytes: a pattern that changes every 4 KiB.
const sha = (() => {
  const block = Buffer.alloc(4 << 20);
  const fd = openSync(file, 'w');
  const hash = createHash('sha256');
  for (let off = 0; off < SIZE; off += block.length) {
    for (let i = 0; i < block.length; i += 4096) block.fill(((off + i) / 4096) & 0xff, i, i + 4096);
    const part = block.subarray(0, Math.min(block.length, SIZE - off));
    writeSync(fd, part);
    hash.update(part);
  }
  closeSync(fd);
  return hash.digest('hex');
})();

const children = [];
const stopAll = () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
};
process.on('exit', stopAll);

// nginx: its own prefix, conf and port; sendfile on; stopped by its pid (the child) at the end.
const nginxPort = await freePort();
const prefix = path.join(work, 'nginx');
mkdirSync(path.join(prefix, 'logs'), { recursive: true });
writeFileSync(
  path.join(prefix, 'nginx.conf'),
  `daemon off;
master_process off;
worker_processes 1;
pid ${path.join(prefix, 'nginx.pid')};
error_log ${path.join(prefix, 'logs', 'error.log')} warn;
events { worker_connections 64; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  client_body_temp_path ${path.join(prefix, 'body')};
  proxy_temp_path ${path.join(prefix, 'proxy')};
  fastcgi_temp_path ${path.join(prefix, 'fastcgi')};
  uwsgi_temp_path ${path.join(prefix, 'uwsgi')};
  scgi_temp_path ${path.join(prefix, 'scgi')};
  server {
    listen 127.0.0.1:${nginxPort};
    root ${tree};
    location / { }
  }
}
`,
);
const nginx = spawn('nginx', ['-p', prefix, '-c', path.join(prefix, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'inherit'] });
children.push(nginx);

// A real hub over the file: indexed from the tree with nginx as its one source.
const data = path.join(work, 'data');
const template = `http://127.0.0.1:${nginxPort}/{id}/{path}`;
execFileSync(process.execPath, [cli, 'index', 'build', '--from-dir', tree, '--source', `nginx=${template}`, '--data', data], {
  env: { ...process.env, HUB_LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
writeFileSync(
  path.join(data, 'bench.json'),
  JSON.stringify({
    demo: false,
    sources: [{ name: 'nginx', display: 'nginx', token: 'nginx', kind: 'http', url: template }],
    order: ['nginx'],
  }),
);
const hubPort = await freePort();
const hubUrl = `http://127.0.0.1:${hubPort}`;
const hub = spawn(
  process.execPath,
  [cli, 'serve', '--port', String(hubPort), '--host', '127.0.0.1', '--data', data, '--config', path.join(data, 'bench.json')],
  { env: { ...process.env, HUB_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] },
);
children.push(hub);
for (let i = 0; ; i++) {
  try {
    if (
      (await fetch(`${hubUrl}/-/ready`)).ok &&
      (await fetch(`http://127.0.0.1:${nginxPort}/bench/model/model.bin`, { method: 'HEAD' })).ok
    )
      break;
  } catch {}
  if (i > 300) throw new Error('the hub or nginx did not start');
  await new Promise((r) => setTimeout(r, 50));
}
const resolveUrl = `${hubUrl}/bench/model/resolve/main/model.bin`;
const first = await fetch(resolveUrl, { redirect: 'manual' });
if (first.status !== 302) throw new Error(`resolve answered ${first.status}`);

const out = path.join(work, 'out');
mkdirSync(out, { recursive: true });
const hfScript = `
import { downloadFileToCacheDir } from '@huggingface/hub';
const p = await downloadFileToCacheDir({ repo: 'bench/model', path: 'model.bin', hubUrl: ${JSON.stringify(hubUrl)}, cacheDir: ${JSON.stringify(path.join(out, 'hf'))} });
if (!p) process.exit(1);
`;
const timed = (cmd, args, opts = {}) =>
  new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    execFile(cmd, args, { maxBuffer: 1 << 26, ...opts }, (err, stdout, stderr) =>
      err
        ? reject(new Error(`${cmd} failed: ${stderr}${stdout}`))
        : resolve({ seconds: Number(process.hrtime.bigint() - t0) / 1e9, stdout, stderr }),
    );
  });
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

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
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
