#!/usr/bin/env node
// The models pages of a data folder's current day (layout 4 cuts them by their ids): how many there are, how many
// models they hold, how many the bound cut, and how many pages a browse page of 50 reads (every 50 ranks from 0).
// Usage: node bench/page-spans.mjs DATA [--per 50]
import path from 'node:path';
import { parseArgs } from 'node:util';

const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const { values, positionals } = parseArgs({
  options: { per: { type: 'string', default: '50' } },
  args: process.argv.slice(2).filter((a) => a !== '--'),
  allowPositionals: true,
});
const dir = positionals[0];
if (!dir) {
  console.error('usage: node bench/page-spans.mjs DATA [--per 50]');
  process.exit(2);
}
const { openDay } = await import(path.join(root, 'packages/hub/dist/index.js'));
const { FsObjectStore } = await import(path.join(root, 'packages/objects/dist/node/index.js'));
const store = new FsObjectStore(dir);
const day = await openDay(store, await store.readRef('current'), 'paged', () => undefined, { verify: false });
const sizes = [];
for await (const page of day.modelsPages()) sizes.push(page.size);
const per = Number(values.per);
const pageOf = new Uint32Array(sizes.reduce((n, s) => n + s, 0));
let rank = 0;
for (const [p, size] of sizes.entries()) for (let k = 0; k < size; k++) pageOf[rank++] = p;
const spans = [];
for (let o = 0; o + per <= pageOf.length; o += per) spans.push(pageOf[o + per - 1] - pageOf[o] + 1);
spans.sort((a, b) => a - b);
const at = (f) => spans[Math.floor(f * (spans.length - 1))];
const most = sizes.reduce((m, s) => Math.max(m, s), 0);
console.log(
  JSON.stringify({
    version: day.root.version,
    models: pageOf.length,
    pages: sizes.length,
    meanSize: +(pageOf.length / sizes.length).toFixed(3),
    maxSize: most,
    atMax: sizes.filter((s) => s === most).length,
    [`pagesPer${per}`]: { min: at(0), p50: at(0.5), p99: at(0.99), max: at(1) },
  }),
);
