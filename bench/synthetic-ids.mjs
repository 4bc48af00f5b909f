// The id of SYNTHETIC model `i`: core-index's own `syntheticId` (packages/core-index/src/testing/scale.ts, the ids
// `syntheticModels` makes), so the scale benches pick ids without holding the model list. The wrk scripts spell the
// same rule once in Lua (bench/synthetic-id.lua); `node bench/synthetic-ids.mjs --check` compares the two through wrk.
import { syntheticId, syntheticModel } from '../packages/core-index/dist/testing/index.js';

export const idOf = syntheticId;
/** SYNTHETIC model `i` of `n` (what core-index's `syntheticModelStream(n)` gives at `i`). */
export const modelOf = syntheticModel;

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
