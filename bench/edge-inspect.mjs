// The edge-scale bench's view into workerd (bench/edge-scale.mjs): a free port for its inspector, the Worker isolate's
// V8 heap through that inspector, and the resident memory of this process's own workerd.
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';

const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const miniflarePath = createRequire(realpathSync(path.join(root, 'apps/edge/node_modules/wrangler/package.json'))).resolve('miniflare');
const WebSocket = createRequire(miniflarePath)('ws');

/** A free loopback port (for workerd's inspector). */
export async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The Worker's isolate in workerd, through its inspector (Miniflare's `inspectorPort`, the DevTools protocol):
 * `usedMB()` answers the isolate's V8 heap in use after a full collection.
 */
export async function isolateInspector(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const target = targets.find((t) => t.id.startsWith('core:user:'));
  if (!target) throw new Error(`workerd's inspector lists no user Worker: ${targets.map((t) => t.id).join(', ')}`);
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let next = 0;
  const call = (method) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      const timer = setTimeout(() => reject(new Error(`the inspector did not answer ${method}`)), 60_000);
      const on = (data) => {
        const msg = JSON.parse(String(data));
        if (msg.id !== id) return;
        clearTimeout(timer);
        ws.off('message', on);
        if (msg.error) reject(new Error(`${method}: ${msg.error.message}`));
        else resolve(msg.result);
      };
      ws.on('message', on);
      ws.send(JSON.stringify({ id, method }));
    });
  await call('HeapProfiler.enable');
  return {
    async usedMB() {
      // a heap snapshot collects garbage first (workerd never answers HeapProfiler.collectGarbage); its chunks, sent
      // as events, are left unread
      await call('HeapProfiler.takeHeapSnapshot');
      return (await call('Runtime.getHeapUsage')).usedSize / 2 ** 20;
    },
    close: () => ws.close(),
  };
}

/**
 * The resident memory of this process's own workerd (a child of this process: the newest workerd on the machine may be
 * another session's), in MB.
 */
export function workerdRssMB() {
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      if (readFileSync(`/proc/${p}/comm`, 'utf8').trim() !== 'workerd') continue;
      // /proc/PID/stat: "pid (comm) state ppid …"
      const ppid = Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
      if (ppid !== process.pid) continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      return rss ? Number(rss[1]) / 1024 : 0;
    } catch {
      // gone while read
    }
  }
  return 0;
}
