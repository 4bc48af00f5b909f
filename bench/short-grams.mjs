#!/usr/bin/env node
// What the terms of search words of one or two characters cost the build (issue 39, term-pages.ts `ShortGrams`): the
// tabulation of N SYNTHETIC lower-case ids, in process, CPU and wall time per round, and how many grams keep a list
// (at most 4,096 ids) and how many only a count. Build first (for the SYNTHETIC ids).
// Usage: node bench/short-grams.mjs [--n 100000] [--rounds 3]
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';

const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const { values } = parseArgs({
  options: { n: { type: 'string', default: '100000' }, rounds: { type: 'string', default: '3' } },
  args: process.argv.slice(2).filter((a) => a !== '--'),
});
// `ShortGrams` is internal to the builder: bundled here from its source with the esbuild tsup builds with
const esbuild = createRequire(createRequire(import.meta.url).resolve('tsup'))('esbuild');
const bundled = await esbuild.build({
  entryPoints: [path.join(root, 'packages/core-index/src/index/term-pages.ts')],
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  write: false,
  logLevel: 'warning',
});
const { ShortGrams } = await import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].contents).toString('base64')}`);
const { syntheticId } = await import(path.join(root, 'packages/core-index/dist/testing/index.js'));
const n = Number(values.n);
const ids = Array.from({ length: n }, (_, i) => syntheticId(i).toLowerCase());
for (let round = 1; round <= Number(values.rounds); round++) {
  const grams = new ShortGrams();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) grams.add(ids[i], i);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  let listed = 0;
  let counted = 0;
  for (const t of grams.terms())
    if (t.bytes) listed++;
    else counted++;
  const cpuMs = (cpu.user + cpu.system) / 1000;
  console.log(
    `round ${round}: ${n} ids, ${wall.toFixed(0)} ms wall, ${cpuMs.toFixed(0)} ms CPU (${((cpuMs * 1000) / n).toFixed(2)} µs an id); ${listed} grams listed, ${counted} counted`,
  );
}
