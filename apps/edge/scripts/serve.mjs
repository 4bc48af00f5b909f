// Serve the built Worker (dist/worker.js) under workerd with Miniflare, seeded with the demo index and
// pointed at a demo mirror, without wrangler's dev proxy: what `pnpm bench` measures beside node-server.
//   node apps/edge/scripts/serve.mjs [--port 18383] [--baseline [--headers JSON]]   (prints "ready <url>")
// --baseline serves a trivial Worker answering every request with the same fixed 302 under the same Miniflare
// setup instead of the hub: the edge benchmark's baseline (bench/edge.mjs). --headers gives that 302's headers (a
// JSON object; default: a location and one more header), so a baseline can answer the exact bytes the hub answered.
// Needs the build: `npx turbo run build --filter=@hub/edge... --filter=@hub/node-toolkit`.
import { realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { uploadStore } from './seed.mjs';

const EDGE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = path.join(EDGE_DIR, '..', '..');
const { values } = parseArgs({
  options: { port: { type: 'string', default: '18383' }, baseline: { type: 'boolean' }, headers: { type: 'string' } },
});

const node = await import(path.join(ROOT, 'packages', 'node-toolkit', 'dist', 'index.js'));
const { MemoryObjectStore } = await import('@hub/core-index');
const { Miniflare } = await import(
  createRequire(realpathSync(path.join(EDGE_DIR, 'node_modules', 'wrangler', 'package.json'))).resolve('miniflare')
);

if (values.baseline) {
  const mf = new Miniflare({
    modules: true,
    script: `const H = ${values.headers ?? JSON.stringify({ location: 'http://127.0.0.1:1/demo/file', 'x-repo-commit': '0'.repeat(40) })};
export default { fetch() { return new Response(null, { status: 302, headers: H }); } };`,
    compatibilityDate: '2026-04-20',
    host: '127.0.0.1',
    port: Number(values.port),
  });
  console.log(`ready ${(await mf.ready).origin}`);
  const stop = async () => {
    await mf.dispose();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
} else {
  await serveHub();
}

async function serveHub() {
  const mirror = await node.startDemoMirror({ root: node.demoTreeDir() });
  const source = node.demoSource(mirror.template);
  const mf = new Miniflare({
    modules: true,
    scriptPath: path.join(EDGE_DIR, 'dist', 'worker.js'),
    modulesRoot: path.join(EDGE_DIR, 'dist'),
    compatibilityDate: '2026-04-20',
    r2Buckets: ['OBJECTS'],
    d1Databases: ['ACCOUNTS'],
    kvNamespaces: ['STATE'],
    bindings: { SOURCES: [source], ORDER: [node.DEMO_SOURCE, 'huggingface.co', 'modelscope.cn', 'ipfs'], LOG_LEVEL: 'warn' },
    host: '127.0.0.1',
    port: Number(values.port),
  });
  const url = (await mf.ready).origin;
  const demo = new MemoryObjectStore();
  await node.seedDemo(demo);
  await uploadStore(demo, await mf.getR2Bucket('OBJECTS'));
  console.log(`ready ${url}`);

  const stop = async () => {
    await mf.dispose();
    await mirror.close();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
