// `pnpm --filter @hub/edge dev`: the hub under workerd (wrangler dev) on port 8787, seeded with the bundled
// demo index, redirecting to a static mirror of the demo bytes on localhost:8788.
//  1. build the Worker bundle and @hub/node-toolkit (which holds the demo tree and its builder);
//  2. build the demo index in memory and upload it to wrangler's local R2 (.wrangler/state), unless there;
//  3. start the demo mirror; 4. run `wrangler dev`, pointing SOURCES at the mirror.
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { uploadStore } from './seed.mjs';
import { withBucket } from './upload.mjs';

const EDGE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = path.join(EDGE_DIR, '..', '..');
const PORT = Number(process.env.PORT ?? 8787);
const MIRROR_PORT = Number(process.env.MIRROR_PORT ?? PORT + 1);

execFileSync('npx', ['turbo', 'run', 'build', '--filter=@hub/edge...', '--filter=@hub/node-toolkit', '--output-logs=errors-only'], {
  cwd: ROOT,
  stdio: 'inherit',
});

const node = await import(path.join(ROOT, 'packages', 'node-toolkit', 'dist', 'index.js'));
const { MemoryObjectStore } = await import('@hub/core-index');
const demo = new MemoryObjectStore();
const built = await node.seedDemo(demo);
await withBucket(async (bucket) => {
  const current = await (await bucket.get('refs/current'))?.text();
  if (current === built.catalog) return console.log(`local R2 already holds the demo index ${current}`);
  const { objects } = await uploadStore(demo, bucket);
  console.log(`seeded the local R2 with the demo index: ${objects} objects, refs/current = ${built.catalog}`);
});

const mirror = await node
  .startStaticMirror({ root: node.demoTreeDir(), port: MIRROR_PORT })
  .catch(() => node.startStaticMirror({ root: node.demoTreeDir(), port: 0 }));
console.log(`demo mirror: ${mirror.url}`);
const source = node.demoSource(mirror.template);
const order = [node.DEMO_SOURCE, 'huggingface.co', 'modelscope.cn', 'ipfs'];

const wrangler = spawn(
  'npx',
  [
    'wrangler',
    'dev',
    '--port',
    String(PORT),
    '--ip',
    '127.0.0.1',
    '--var',
    `SOURCES:${JSON.stringify([source])}`,
    '--var',
    `ORDER:${JSON.stringify(order)}`,
    ...process.argv.slice(2),
  ],
  { cwd: EDGE_DIR, stdio: 'inherit' },
);
const stop = () => wrangler.kill('SIGINT');
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
wrangler.on('exit', async (code) => {
  await mirror.close();
  process.exit(code ?? 0);
});
