// `pnpm --filter @hub/edge dev`: the hub under workerd (wrangler dev) on port 8787, seeded with the bundled
// demo index, the bundled spaces and the demo bucket (as node-server seeds an empty data folder), redirecting to a
// static mirror of the demo bytes on localhost:8788.
//  1. build the Worker bundle and @hub/node-toolkit (which holds the demo tree and its builder);
//  2. build the spaces, the bucket and the demo index in memory and upload them to wrangler's local R2
//     (.wrangler/state), unless there;
//  3. start the demo mirror; 4. run `wrangler dev`, pointing SOURCES at the mirror.
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bucketHolds, demoStore, uploadStore } from './seed.mjs';
import { withBucket } from './upload.mjs';

const EDGE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = path.join(EDGE_DIR, '..', '..');
const PORT = Number(process.env.PORT ?? 8787);
const MIRROR_PORT = Number(process.env.MIRROR_PORT ?? PORT + 1);

execFileSync(
  'npx',
  ['turbo', 'run', 'build', '--filter=@hub/edge...', '--filter=@hub/node-toolkit', '--filter=@hub/spaces', '--output-logs=errors-only'],
  {
    cwd: ROOT,
    stdio: 'inherit',
  },
);

const { DEMO_SOURCE, demoSource, demoTreeDir, seedBuckets, seedDemo, seedSpaces, startDemoMirror } = await import(
  path.join(ROOT, 'packages', 'node-toolkit', 'dist', 'index.js')
);
const { MemoryObjectStore, silentLogger } = await import('@hub/core-index');
// The bundled spaces, the demo bucket and the demo index, as node-server seeds an empty data folder.
const { store: demo, catalog } = await demoStore({ seedBuckets, seedDemo, seedSpaces }, { MemoryObjectStore, silentLogger });
await withBucket(async (bucket) => {
  if (await bucketHolds(bucket, demo)) return console.log(`local R2 already holds the demo index ${catalog}, its spaces and bucket`);
  const { objects } = await uploadStore(demo, bucket);
  console.log(
    `seeded the local R2 with the demo index, the bundled spaces and the demo bucket: ${objects} objects, refs/current = ${catalog}`,
  );
});

const mirror = await startDemoMirror({ root: demoTreeDir(), port: MIRROR_PORT }).catch(() =>
  startDemoMirror({ root: demoTreeDir(), port: 0 }),
);
console.log(`demo mirror: ${mirror.url}`);
const source = demoSource(mirror.template);
const order = [DEMO_SOURCE, 'huggingface.co', 'modelscope.cn', 'ipfs'];

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
