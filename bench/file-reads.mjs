// What the file system asks of a cold look-up, alone (issue 39, docs/decisions/scale-and-speed.md "Not done: random
// look-ups of cold models"): over the object files of a data folder, in one process, synchronously as the paged store
// reads (packages/objects/src/node/fs-read.ts): `open` + `close` of a random object file, a 512-byte `pread` on one of
// 2,000 descriptors kept open, and a `stat`, each 20,000 times a round. The floor under any look-up that reads a file
// it has not opened: a cold look-up reads two (its id bucket and its models page). Read the folder once first (`node
// bench/warm-pages.mjs DATA`) so the page cache is not what is measured.
// Usage: node bench/file-reads.mjs DATA [--rounds 3]
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  options: { rounds: { type: 'string', default: '3' } },
  allowPositionals: true,
  args: process.argv.slice(2).filter((a) => a !== '--'),
});
const [data] = positionals;
if (!data) {
  console.error('usage: node bench/file-reads.mjs DATA [--rounds 3]');
  process.exit(2);
}
const dir = path.join(data, 'objects');
const files = [];
for (const d of readdirSync(dir)) for (const f of readdirSync(path.join(dir, d))) if (!f.includes('.')) files.push(path.join(dir, d, f));
const pick = () => files[Math.floor(Math.random() * files.length)];
const buf = Buffer.alloc(4096);
const N = 20_000;
const us = (t) => (Number(process.hrtime.bigint() - t) / N / 1000).toFixed(2);
for (let round = 0; round < Number(values.rounds); round++) {
  let t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) closeSync(openSync(pick(), 'r'));
  const openClose = us(t);
  const fds = Array.from({ length: 2_000 }, () => openSync(pick(), 'r'));
  t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) readSync(fds[i % fds.length], buf, 0, 512, 0);
  const pread = us(t);
  for (const fd of fds) closeSync(fd);
  t = process.hrtime.bigint();
  for (let i = 0; i < N; i++) statSync(pick());
  const stat = us(t);
  console.log(
    `round ${round + 1}: open+close ${openClose} µs, pread on a kept descriptor ${pread} µs, stat ${stat} µs (${files.length} object files)`,
  );
}
