// The parts of a cold look-up of the paged store, in process (issue 39): `model()` of random SYNTHETIC ids over a
// built data folder (3 rounds of 20,000), then, for 5,000 ids, the id bucket, the ranged read of the model, its BLAKE3,
// its parse, the schemas and `makeModel`, and the read of its whole models page, each timed alone. Build first.
// Usage: node bench/lookup-parts.mjs DIR N [noverify]   (DIR: a folder `bench/scale.mjs --phase build` wrote)
import path from 'node:path';
import { installFastBlake3 } from '../apps/node-server/dist/index.js';
import { idOf } from './synthetic-ids.mjs';

const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const dist = (p) => path.join(root, p);
const core = await import(dist('packages/core-index/dist/index.js'));
const { openDay } = await import(dist('packages/hub/dist/index.js'));
const { FsObjectStore } = await import(dist('packages/objects/dist/node/index.js'));
// BLAKE3 as `hub index build` hashes (blake3-wasm)
installFastBlake3();
const [dir, n, verify] = [process.argv[2], Number(process.argv[3]), process.argv[4] !== 'noverify'];
if (!dir || !(n > 0)) {
  console.error('usage: node bench/lookup-parts.mjs DIR N [noverify]');
  process.exit(2);
}
const store = new FsObjectStore(dir);
const index = await openDay(store, await store.readRef('current'), 'paged', () => undefined, { verify });
let s = 12345;
const pick = () => {
  s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
  return Math.floor((s / 2 ** 32) * n);
};
const each = (t, k) => `${(((performance.now() - t) * 1000) / k).toFixed(1)} µs`;
for (let k = 0; k < 2000; k++) await index.model(idOf(pick()));
for (let round = 0; round < 3; round++) {
  const t = performance.now();
  for (let k = 0; k < 20000; k++) await index.model(idOf(pick()));
  console.log(`verify=${verify} model(): ${each(t, 20000)} each`);
}
const ids = Array.from({ length: 5000 }, () => idOf(pick()).toLowerCase());
let t = performance.now();
const entries = [];
for (const id of ids) entries.push(await index.bucket(index.root.ids, id));
console.log(`id bucket (read and parse, with the caches): ${each(t, ids.length)}`);
t = performance.now();
const bytes = entries.map((e) => store.readRange(e[0], e[2], e[3]));
console.log(
  `ranged read of the model: ${each(t, ids.length)} (${Math.round(bytes.reduce((a, b) => a + b.length, 0) / bytes.length)} bytes)`,
);
t = performance.now();
for (const b of bytes) core.addressOf(b);
console.log(`BLAKE3 of the model: ${each(t, ids.length)}`);
const decoder = new TextDecoder();
t = performance.now();
const parsed = bytes.map((b) => JSON.parse(decoder.decode(b)));
console.log(`decode and parse: ${each(t, ids.length)}`);
t = performance.now();
for (const [k, e] of parsed.entries()) index.fromEntry(e, entries[k][1], 0);
console.log(`schemas and makeModel: ${each(t, ids.length)}`);
t = performance.now();
for (const e of entries) store.readBytes(e[0]);
console.log(`read of the whole models page: ${each(t, ids.length)}`);
console.log(`RSS ${Math.round(process.memoryUsage().rss / 2 ** 20)} MB`);
