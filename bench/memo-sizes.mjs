#!/usr/bin/env node
// The build memo of a data folder (the object `refs/build-memo` names): how many objects each of its parts has and
// their size, and the made answers file beside it. What a build reading that memo holds is in docs/benchmarks.md.
// Usage: node bench/memo-sizes.mjs DATA
import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv.slice(2).find((a) => a !== '--');
if (!dir) {
  console.error('usage: node bench/memo-sizes.mjs DATA');
  process.exit(2);
}
const { objectFile } = await import(
  path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'packages/objects/dist/node/index.js')
);
const file = (a) => objectFile(path.join(dir, 'objects'), a);
const ref = path.join(dir, 'refs', 'build-memo');
if (!fs.existsSync(ref)) {
  console.error(`no build memo in ${dir}`);
  process.exit(2);
}
const root = JSON.parse(fs.readFileSync(file(fs.readFileSync(ref, 'utf8').trim()), 'utf8'));
const parts = {};
for (const [key, value] of Object.entries(root))
  if (Array.isArray(value) && value.every((a) => typeof a === 'string' && a.startsWith('blake3:')) && value.length > 0)
    parts[key] = { objects: value.length, MB: +(value.reduce((n, a) => n + fs.statSync(file(a)).size, 0) / 2 ** 20).toFixed(1) };
const made = path.join(dir, 'made-answers');
console.log(JSON.stringify({ parts, madeAnswersMB: fs.existsSync(made) ? Math.round(fs.statSync(made).size / 2 ** 20) : null }));
