// Upload an index to the edge's R2 bucket: every object and the `log`, `archive`, `pins` and `current` refs of a
// node-server data folder (what `hub index build` writes), through wrangler's getPlatformProxy.
//
//   node scripts/upload.mjs --data ../../.hub-data            # the local R2 that `wrangler dev` reads
//   node scripts/upload.mjs --data ../../.hub-data --remote   # the real bucket (env "upload" in wrangler.jsonc)
//
// Build first: `npx turbo run build --filter=@hub/edge... --filter=@hub/objects`.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { uploadStore } from './seed.mjs';

const EDGE_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The OBJECTS binding as wrangler gives it: local persistence, or (`remote`) the real bucket. */
export async function withBucket(fn, { remote = false } = {}) {
  const { getPlatformProxy } = await import('wrangler');
  const proxy = await getPlatformProxy({
    configPath: path.join(EDGE_DIR, 'wrangler.jsonc'),
    ...(remote ? { environment: 'upload', remoteBindings: true } : { remoteBindings: false }),
  });
  try {
    return await fn(proxy.env.OBJECTS);
  } finally {
    await proxy.dispose();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { data: { type: 'string' }, remote: { type: 'boolean', default: false } } });
  if (!values.data) {
    console.error('usage: node scripts/upload.mjs --data DIR [--remote]');
    process.exit(2);
  }
  const { FsObjectStore } = await import('@hub/objects/node');
  const store = new FsObjectStore(path.resolve(values.data));
  const current = await store.readRef('current');
  if (!current) {
    console.error(`${values.data} holds no index (no refs/current): run "hub index build" first.`);
    process.exit(1);
  }
  const { objects } = await withBucket((bucket) => uploadStore(store, bucket), { remote: values.remote });
  console.log(
    `uploaded ${objects} objects; refs/current = ${current}${values.remote ? ' (remote bucket)' : ' (local R2 of wrangler dev)'}`,
  );
}
