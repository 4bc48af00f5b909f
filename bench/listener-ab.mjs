// The request path of two builds side by side in ONE process (issue 38): node-server's hubListener of each checkout,
// over its own SYNTHETIC test hub (@hub/hub/testing), called directly with a fake request and response for kept
// answers (written in the same turn: no socket, no event-loop turn), in alternating blocks of N calls. The process's
// CPU time per call (not wall time: on a shared machine the wall clock counts other processes) per build, and the
// ratio per block. Both checkouts must be built.
// Usage: node bench/listener-ab.mjs --base DIR --head DIR [--calls 200000] [--blocks 10]
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    base: { type: 'string' },
    head: { type: 'string', default: path.join(path.dirname(new URL(import.meta.url).pathname), '..') },
    calls: { type: 'string', default: '200000' },
    blocks: { type: 'string', default: '10' },
  },
});
if (!values.base) {
  console.error('bench/listener-ab.mjs: --base DIR (a built checkout to compare with) is needed');
  process.exit(2);
}
const builds = { base: path.resolve(values.base), house: path.resolve(values.head) };
const N = Number(values.calls);
const BLOCKS = Number(values.blocks);
const routes = ['/api/models?limit=50', '/synthetic-org/bert-ish/resolve/main/config.json'];
const listeners = {};
for (const [name, dir] of Object.entries(builds)) {
  const { hubListener } = await import(`${dir}/apps/node-server/dist/index.js`);
  const { createComposedTestHub } = await import(`${dir}/packages/hub/dist/testing/index.js`);
  const { hub } = await createComposedTestHub();
  listeners[name] = hubListener(hub, () => false, { listenHost: '0.0.0.0' });
}
let written = 0;
let lastStatus = 0;
const res = {
  headersSent: false,
  writeHead(s) {
    lastStatus = s;
  },
  end() {
    written++;
  },
  destroy() {},
};
const req = (url) => ({ method: 'GET', url, headers: { host: '127.0.0.1:8080', accept: '*/*', 'user-agent': 'bench' } });
// warm: make every answer kept, then let the JIT settle
for (const l of Object.values(listeners))
  for (const u of routes) {
    l(req(u), res);
    await new Promise((r) => setTimeout(r, 50));
  }
for (const [name, l] of Object.entries(listeners))
  for (const u of routes) {
    const before = written;
    l(req(u), res);
    if (written !== before + 1) console.log(`${name} ${u}: not written in the same turn (status ${lastStatus})`);
  }
for (let i = 0; i < 3; i++) for (const l of Object.values(listeners)) for (let k = 0; k < N; k++) l(req(routes[k % routes.length]), res);
const per = { base: [], house: [] };
for (let b = 0; b < BLOCKS; b++) {
  const order = b % 2 ? ['house', 'base'] : ['base', 'house'];
  for (const name of order) {
    const l = listeners[name];
    const reqs = Array.from({ length: N }, (_, k) => req(routes[k % routes.length]));
    const t = process.cpuUsage();
    for (let k = 0; k < N; k++) l(reqs[k], res);
    const d = process.cpuUsage(t);
    per[name].push(((d.user + d.system) * 1e3) / N);
  }
}
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ratios = per.house.map((h, i) => h / per.base[i]);
console.log(
  `kept answers through hubListener (process CPU time), ${N} calls per block, ${BLOCKS} alternating blocks, status ${lastStatus}`,
);
console.log(
  `base ${med(per.base).toFixed(0)} ns/call, head ${med(per.house).toFixed(0)} ns/call; head/base median ${med(ratios).toFixed(3)} (per block ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)})`,
);
