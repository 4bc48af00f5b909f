// pnpm bench --soak: a long mixed load over the hot routes of node-server on the demo index, reporting errors,
// latency percentiles and resident memory at the start and the end (issue 19). Not a test: it measures.
// Usage: node bench/soak.mjs [--minutes 10] [--connections 50]   (needs the build: apps/node-server/dist/cli.js)
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    soak: { type: 'boolean' },
  },
  args: process.argv.slice(2).filter((a) => a !== '--'),
  strict: false,
});
const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const MINUTES = Number(values.minutes);
const CONNECTIONS = Number(values.connections);
const PORT = 18480;
const data = mkdtempSync(path.join(os.tmpdir(), 'hub-soak-'));

const rssMiB = (pid) => {
  try {
    return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim()) / 1024;
  } catch {
    return Number.NaN;
  }
};

const hub = spawn(
  process.execPath,
  ['apps/node-server/dist/cli.js', 'serve', '--port', String(PORT), '--data', data, '--host', '127.0.0.1'],
  { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn' } },
);
let errorLines = 0;
// The hub logs JSON lines; count error-level ones (pino level 50+) over the whole soak.
for (const stream of [hub.stdout, hub.stderr]) {
  let buf = '';
  stream.on('data', (d) => {
    buf += d;
    let nl = buf.indexOf('\n');
    while (nl !== -1) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (/"level":(5\d|60)/.test(line)) errorLines++;
      nl = buf.indexOf('\n');
    }
  });
}
const base = `http://127.0.0.1:${PORT}`;
try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/-/ready`)).ok) break;
    } catch {}
    if (i > 600) throw new Error('the hub did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const descriptor = await (await fetch(`${base}/`, { headers: { accept: 'application/json' } })).json();
  const catalog = descriptor.catalog?.address ?? descriptor.catalog;
  const routes = [
    ['GET', '/', { accept: 'application/json' }],
    ['GET', '/demo/tiny-llama-2-GGUF/resolve/main/llama-2-tiny-random-F16.gguf', {}],
    ['HEAD', '/demo/tiny-llama-2-GGUF/resolve/main/llama-2-tiny-random-F16.gguf', {}],
    ['GET', '/api/models?limit=50', {}],
    ['GET', '/api/models?search=llama&limit=20', {}],
    ['GET', '/api/models/demo/tiny-llama-2-GGUF/tree/main', {}],
    ['GET', '/v2/demo/tiny-llama-2-gguf/manifests/latest', { accept: 'application/vnd.docker.distribution.manifest.v2+json' }],
    ['GET', `/api/v1/objects/${catalog}`, {}],
    ['GET', '/api/hub/health', {}],
  ];
  const lua = `
local routes = {
${routes
  .map(
    ([m, p, h]) =>
      `  { "${m}", "${p}", { ${Object.entries(h)
        .map(([k, v]) => `["${k}"] = "${v}"`)
        .join(', ')} } },`,
  )
  .join('\n')}
}
local i = 0
request = function()
  i = i + 1
  local r = routes[(i % #routes) + 1]
  return wrk.format(r[1], r[2], r[3])
end
`;
  const script = path.join(data, 'soak.lua');
  writeFileSync(script, lua);
  const startRss = rssMiB(hub.pid);
  const samples = [{ at: 0, rss: startRss }];
  const t0 = Date.now();
  const sampler = setInterval(() => {
    samples.push({ at: (Date.now() - t0) / 1000, rss: rssMiB(hub.pid) });
    const last = samples.at(-1);
    process.stderr.write(`\rsoak: ${Math.round(last.at)} s of ${MINUTES * 60} s, hub RSS ${last.rss.toFixed(1)} MiB   `);
  }, 10_000);
  const out = await new Promise((resolve, reject) =>
    execFile(
      'wrk',
      ['-t2', `-c${CONNECTIONS}`, `-d${Math.round(MINUTES * 60)}s`, '--latency', '-s', script, base],
      { maxBuffer: 1 << 24 },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    ),
  );
  clearInterval(sampler);
  process.stderr.write('\n');
  const endRss = rssMiB(hub.pid);
  const num = (re) => Number(re.exec(out)?.[1] ?? 0);
  const pct = (p) => /([\d.]+\w+)/.exec(new RegExp(`${p}%\\s+([\\d.]+\\w+)`).exec(out)?.[1] ?? '?')?.[1] ?? '?';
  const requests = num(/(\d+) requests in/);
  const non3xx = num(/Non-2xx or 3xx responses:\s+(\d+)/);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = socket ? socket.slice(1).reduce((n, x) => n + Number(x), 0) : 0;
  const peak = Math.max(...samples.map((s) => s.rss), endRss);
  console.log(
    [
      `Command: \`pnpm bench --soak\` (wrk -t2 -c${CONNECTIONS} -d${MINUTES * 60}s with a Lua script cycling over ${routes.length} hot routes; node-server on the demo index, its own process on loopback; Node ${process.version}; ${os.cpus().length} cores)`,
      '',
      '| requests | req/s | non-2xx/3xx | socket errors | error-level log lines | p50 | p90 | p99 | RSS start | RSS end | RSS peak |',
      '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      `| ${requests} | ${num(/Requests\/sec:\s+([\d.]+)/).toFixed(0)} | ${non3xx} | ${socketErrors} | ${errorLines} | ${pct(50)} | ${pct(90)} | ${pct(99)} | ${startRss.toFixed(1)} MiB | ${endRss.toFixed(1)} MiB | ${peak.toFixed(1)} MiB |`,
      '',
      `Routes: ${routes.map(([m, p]) => `${m} ${p.replace(/blake3:[0-9a-f]{64}/, 'blake3:{catalog}')}`).join('; ')}.`,
      `RSS samples every 10 s (MiB): ${samples.map((s) => s.rss.toFixed(0)).join(' ')} ${endRss.toFixed(0)}.`,
    ].join('\n'),
  );
  if (non3xx + socketErrors + errorLines > 0) process.exitCode = 1;
} finally {
  hub.kill('SIGTERM');
  await new Promise((r) => hub.once('exit', r));
  rmSync(data, { recursive: true, force: true });
}
