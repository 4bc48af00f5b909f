#!/usr/bin/env node
// Read every id bucket and models page of a data folder's current day once, so they are in the operating system's
// page cache before a measurement of look-ups or searches (a day just built, or not read for a while, is partly on
// disk only, and a walk of it then measures the disk).
// Usage: node bench/warm-pages.mjs DATA
import fs from 'node:fs';
import path from 'node:path';

const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const dir = process.argv.slice(2).find((a) => a !== '--');
if (!dir) {
  console.error('usage: node bench/warm-pages.mjs DATA');
  process.exit(2);
}
const { openDay } = await import(path.join(root, 'packages/hub/dist/index.js'));
const { FsObjectStore, objectFile } = await import(path.join(root, 'packages/objects/dist/node/index.js'));
const file = (a) => objectFile(path.join(dir, 'objects'), a);
const store = new FsObjectStore(dir);
const day = await openDay(store, await store.readRef('current'), 'paged', () => undefined, { verify: false });
let files = 0;
let bytes = 0;
for (const list of [day.root.ids, day.root.models]) {
  const pages = list.pages ?? (list.dirs ?? []).flatMap((d) => JSON.parse(fs.readFileSync(file(d), 'utf8')).pages);
  for (const a of pages) {
    bytes += fs.readFileSync(file(a)).length;
    files++;
  }
}
console.log(`read ${files} files, ${Math.round(bytes / 2 ** 20)} MB`);
