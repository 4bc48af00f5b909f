// The setup of the `hub get` benches (bench/client.mjs, bench/client-ranges.mjs): one SYNTHETIC file in a temp tree,
// nginx over it (Debian nginx-light, `sendfile on`, each with its own conf, prefix and port on 127.0.0.1, stopped by
// its pid), real hubs over nginx (`hub index build --from-dir`, then `hub serve`), and timing.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
export const cli = path.join(root, 'apps', 'node-server', 'dist', 'cli.js');

/** Exit 2 with the Debian package to install when one of these `[tool, package]` is missing. */
export function needTools(tools) {
  for (const [tool, pkg] of tools) {
    try {
      execFileSync(tool, ['-v'], { stdio: 'ignore' });
    } catch (e) {
      if (e.code === 'ENOENT') {
        console.error(`bench --client: ${tool} is needed (apt-get install -y ${pkg})`);
        process.exit(2);
      }
    }
  }
}

export const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

const children = [];
/** Stop every nginx and hub started here (by their pids). */
export const stopAll = () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
};
process.on('exit', stopAll);

/**
 * A temp folder `work` with `tree/bench/model/model.bin`: `size` SYNTHETIC bytes, a pattern that changes every 4 KiB.
 * Returns the folders and the file's SHA-256.
 */
export function syntheticModel(prefix, size) {
  const work = mkdtempSync(path.join(os.tmpdir(), prefix));
  const tree = path.join(work, 'tree');
  const file = path.join(tree, 'bench', 'model', 'model.bin');
  mkdirSync(path.dirname(file), { recursive: true });
  const block = Buffer.alloc(4 << 20);
  const fd = openSync(file, 'w');
  const hash = createHash('sha256');
  for (let off = 0; off < size; off += block.length) {
    for (let i = 0; i < block.length; i += 4096) block.fill(((off + i) / 4096) & 0xff, i, i + 4096);
    const part = block.subarray(0, Math.min(block.length, size - off));
    writeSync(fd, part);
    hash.update(part);
  }
  closeSync(fd);
  return { work, tree, sha: hash.digest('hex') };
}

/** One nginx over `tree` on its own port, prefix and conf; `rate` is its per-connection `limit_rate` (or none). */
export async function startNginx(work, tree, name, rate) {
  const port = await freePort();
  const prefix = path.join(work, `nginx-${name}`);
  mkdirSync(path.join(prefix, 'logs'), { recursive: true });
  const temp = (t) => `${t}_temp_path ${path.join(prefix, t)};`;
  writeFileSync(
    path.join(prefix, 'nginx.conf'),
    `daemon off;
master_process off;
worker_processes 1;
pid ${path.join(prefix, 'nginx.pid')};
error_log ${path.join(prefix, 'logs', 'error.log')} warn;
events { worker_connections 256; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
  server {
    listen 127.0.0.1:${port};
    root ${tree};
    ${rate ? `limit_rate ${rate};` : ''}
    location / { }
  }
}
`,
  );
  children.push(spawn('nginx', ['-p', prefix, '-c', path.join(prefix, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'inherit'] }));
  return { name, template: `http://127.0.0.1:${port}/{id}/{path}`, probe: `http://127.0.0.1:${port}/bench/model/model.bin` };
}

/** A real hub over `tree` with these nginx as its sources, in this order; ready (and its nginx too) when it returns. */
export async function startHub(work, tree, name, sources) {
  const data = path.join(work, `data-${name}`);
  execFileSync(
    process.execPath,
    [cli, 'index', 'build', '--from-dir', tree, ...sources.flatMap((s) => ['--source', `${s.name}=${s.template}`]), '--data', data],
    { env: { ...process.env, HUB_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const config = {
    demo: false,
    sources: sources.map((s) => ({ name: s.name, display: s.name, token: s.name, kind: 'http', url: s.template })),
    order: sources.map((s) => s.name),
  };
  writeFileSync(path.join(data, 'bench.json'), JSON.stringify(config));
  const port = await freePort();
  children.push(
    spawn(
      process.execPath,
      [cli, 'serve', '--port', String(port), '--host', '127.0.0.1', '--data', data, '--config', path.join(data, 'bench.json')],
      { env: { ...process.env, HUB_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] },
    ),
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if (
        (await fetch(`${url}/-/ready`)).ok &&
        (await Promise.all(sources.map((s) => fetch(s.probe, { method: 'HEAD' })))).every((r) => r.ok)
      )
        break;
    } catch {}
    if (i > 300) throw new Error(`hub ${name} or its nginx did not start`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, resolve: `${url}/bench/model/resolve/main/model.bin` };
}

/** Run a command; its wall seconds and output (rejects when it fails). */
export const timed = (cmd, args, opts = {}) =>
  new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    execFile(cmd, args, { maxBuffer: 1 << 26, ...opts }, (err, stdout, stderr) =>
      err
        ? reject(new Error(`${cmd} ${args.join(' ')} failed: ${stderr}${stdout}`))
        : resolve({ seconds: Number(process.hrtime.bigint() - t0) / 1e9, stdout, stderr }),
    );
  });

export const median = (x) => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)];
