#!/usr/bin/env node
// Searches of one word of three characters on a paged day (issue 39, docs/decisions/scale-and-speed.md "Search words
// of three characters"): the same day's pages read through the root as written (with `idChars`: the union of the
// 4-grams that hold the word) and through the same root without `idChars` (a day written before it: the walk of the
// order, up to the budget of reads), alternating in each round, each side on a fresh store with a cold cache.
// Reports, per word and side: storage reads, wall time (median of the rounds and the spread), the models found on the
// first page of 50, and the total when the search knows it (`more` with no total: more matches past the page, or a
// walk stopped by its budget).
// Run after a build, on a folder `node bench/scale.mjs --phase build --n N --dir DIR` wrote:
//   node bench/short-words.mjs --dir DIR [--rounds 3] [--words 999,l-9,zzz] [--reads-max 50000] [--sort downloads]
import path from 'node:path';
import { parseArgs } from 'node:util';

const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const dist = (p) => path.join(root, p);
const { values } = parseArgs({
  options: {
    dir: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    words: { type: 'string', default: '999,-77,zzz' },
    'reads-max': { type: 'string', default: '50000' },
    sort: { type: 'string' },
  },
  args: process.argv.slice(2).filter((a) => a !== '--'),
});
if (!values.dir) {
  console.error('usage: node bench/short-words.mjs --dir DIR [--rounds 3] [--words a,b] [--reads-max N] [--sort KEY]');
  process.exit(2);
}
const core = await import(dist('packages/core-index/dist/index.js'));
const testing = await import(dist('packages/core-index/dist/testing/index.js'));
const { FsObjectStore } = await import(dist('packages/objects/dist/node/index.js'));

const fs = new FsObjectStore(values.dir);
const catalog = await fs.readRef('current');
const archive = await core.readArchive(fs);
const pages = archive.days.find((d) => d.index === catalog)?.pages;
if (!pages) throw new Error(`${values.dir}: the current day has no index pages`);
const opened = await core.openPagedIndex(fs, pages, catalog, { verify: false });
const withChars = opened.root;
if (!withChars.idChars) throw new Error('this day was written before idChars: rebuild it with this code');
const { idChars: _, ...withoutChars } = withChars;
console.log(`day ${catalog} (${withChars.totals.models} models), idChars ${JSON.stringify(withChars.idChars)}`);

const readsMax = Number(values['reads-max']);
const sides = { union: withChars, walk: withoutChars };
const rows = {};
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const word of values.words.split(',')) {
    for (const side of round % 2 ? ['union', 'walk'] : ['walk', 'union']) {
      const store = new testing.CountingObjectStore(fs);
      const index = new core.PagedIndex(store, pages, sides[side], { verify: false, searchReadsMax: readsMax });
      const t0 = performance.now();
      const page = await index.search({ search: word, ...(values.sort ? { sort: values.sort } : {}) }, 0, 50);
      const ms = performance.now() - t0;
      const key = `${word} ${side}`;
      rows[key] ??= { word, side, ms: [], reads: store.reads, found: page.models.length, total: page.total, more: page.more };
      rows[key].ms.push(ms);
    }
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const r of Object.values(rows)) {
  const ms = r.ms.map((x) => x.toFixed(1));
  console.log(
    `${JSON.stringify(r.word).padEnd(7)} ${r.side.padEnd(5)} reads ${String(r.reads).padStart(6)}  ms ${median(r.ms).toFixed(1).padStart(8)} (${ms.join(', ')})  found ${r.found}${r.total !== undefined ? `, total ${r.total}` : r.more ? ', more (no total)' : ''}`,
  );
}
