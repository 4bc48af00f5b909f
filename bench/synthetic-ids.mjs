// The id of SYNTHETIC model `i`: core-index's own `syntheticId` (packages/core-index/src/testing/scale.ts, the ids
// `syntheticModels` makes), so the scale benches pick ids without holding the model list. The wrk scripts spell the
// same rule once in Lua (bench/synthetic-id.lua); `node bench/synthetic-ids.mjs --check` compares the two through wrk.
import { syntheticId, syntheticModel } from '../packages/core-index/dist/testing/index.js';

export const idOf = syntheticId;
/** SYNTHETIC model `i` of `n` (what core-index's `syntheticModelStream(n)` gives at `i`). */
export const modelOf = syntheticModel;
/**
 * SYNTHETIC model `i` of `n` as a day that changed it has it (bench/scale.mjs `--change`): its license (the default),
 * its first file's digest (`files`: the digest map is made again), or a tag added (`tags`: the search terms are).
 */
export function changedModel(i, n, change = 'license') {
  const m = syntheticModel(i, n);
  if (change === 'files') return { ...m, files: m.files.map((f, k) => (k === 0 ? { ...f, sha256: `f${f.sha256.slice(1)}` } : f)) };
  if (change === 'tags') return { ...m, row: { ...m.row, tags: [...m.row.tags, 'changed'] } };
  if (change !== 'license') throw new Error(`--change: license, files or tags, not ${change}`);
  return { ...m, license: 'apache-2.0' };
}

// `--check`: wrk runs bench/random-models.lua against a server that records each path, and every id asked must be
// core-index's for its number.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()) && process.argv.includes('--check')) {
  const http = await import('node:http');
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const { fileURLToPath } = await import('node:url');
  const seen = [];
  const server = http.createServer((req, res) => {
    seen.push(decodeURIComponent(req.url ?? ''));
    res.end('{}');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const script = fileURLToPath(new URL('./random-models.lua', import.meta.url));
  const { port } = server.address();
  // (asynchronous: this process's server answers wrk meanwhile)
  await promisify(execFile)('wrk', ['-t1', '-c1', '-d1s', '-s', script, `http://127.0.0.1:${port}`], {
    env: { ...process.env, N: '100000' },
  });
  server.close();
  let wrong = 0;
  for (const url of seen) {
    const id = url.slice('/api/models/'.length);
    const i = Number(/\/model-(\d+)/.exec(id)?.[1]);
    if (id !== idOf(i)) wrong++;
  }
  console.log(`${seen.length} ids asked by wrk, ${wrong} not core-index's`);
  if (seen.length === 0 || wrong > 0) process.exit(1);
}
