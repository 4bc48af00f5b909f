// The SYNTHETIC model tree of bench/build.mjs, the same as `pnpm bench --models N` writes (bench/run.mjs): generated names and bytes, 4 small files per
// model (config.json, README.md and two files named like GGUF quants that are not GGUF), 25 owners.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const SYNTHETIC_OWNERS = 25;

/** The folder of SYNTHETIC model `i` under `tree`. */
export function syntheticModelDir(tree, i) {
  return path.join(tree, `bench-org-${i % SYNTHETIC_OWNERS}`, `model-${i}`);
}

/** Write SYNTHETIC models 0 … n-1 under `tree`. */
export function writeSyntheticTree(tree, n) {
  for (let i = 0; i < n; i++) {
    const dir = syntheticModelDir(tree, i);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'llama', synthetic: true, i }));
    writeFileSync(path.join(dir, 'README.md'), `# model-${i}\n\nSYNTHETIC benchmark model.\n`);
    for (const q of ['Q4_K_M', 'Q8_0']) writeFileSync(path.join(dir, `model-${i}-${q}.gguf`), `SYNTHETIC ${q} ${i}`);
  }
}
