// The SYNTHETIC model tree of bench/build.mjs, the same as `pnpm bench --models N` writes (bench/run.mjs): generated names and bytes, 4 small files per
// model (config.json, README.md and two files named like GGUF quants that are not GGUF), 25 owners.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const SYNTHETIC_OWNERS = 25;

/** The folder of SYNTHETIC model `i` under `tree`. */
export function syntheticModelDir(tree, i) {
  return path.join(tree, `bench-org-${i % SYNTHETIC_OWNERS}`, `model-${i}`);
}

/** Write SYNTHETIC models 0 … n-1 under `tree`; `progress(done)` is called every 10,000 models. */
export function writeSyntheticTree(tree, n, progress) {
  for (let i = 0; i < n; i++) {
    const dir = syntheticModelDir(tree, i);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'llama', synthetic: true, i }));
    writeFileSync(path.join(dir, 'README.md'), `# model-${i}\n\nSYNTHETIC benchmark model.\n`);
    for (const q of ['Q4_K_M', 'Q8_0']) writeFileSync(path.join(dir, `model-${i}-${q}.gguf`), `SYNTHETIC ${q} ${i}`);
    if ((i + 1) % 10_000 === 0) progress?.(i + 1);
  }
}

/** The source every SYNTHETIC model is indexed with (its URL is never fetched: nothing listens on port 9). */
export const SYNTHETIC_SOURCE_TEMPLATE = 'http://localhost:9/{id}/resolve/{revision}/{path}';

/** The arguments of `hub index build --from-dir` over a SYNTHETIC tree (after `node`), as both benchmarks run it. */
export function fromDirBuildArgs(tree, data, date = '2026-11-22') {
  return [
    'apps/node-server/dist/cli.js',
    'index',
    'build',
    '--from-dir',
    tree,
    '--source',
    `bench=${SYNTHETIC_SOURCE_TEMPLATE}`,
    '--data',
    data,
    '--date',
    date,
  ];
}
