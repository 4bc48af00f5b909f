// What holds a process's memory, from a V8 heap snapshot too large for JSON.parse (a build of 1,000,000 models):
// node bench/heap-summary.mjs FILE [--top 30]
// Prints the heap's self sizes by kind and constructor, and the array buffers' bytes by their holder: the object and
// property that hold the typed array or Buffer over each buffer (a `U32List`'s chunks, a `DigestList`'s…), found by
// walking the retainers up from each buffer's backing store. Written by bench/scale.mjs --snapshot-over MB.
import { openSync, readSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '30' } }, allowPositionals: true });
const file = positionals[0];
if (!file) {
  console.error('usage: node bench/heap-summary.mjs FILE [--top N]');
  process.exit(2);
}
const top = Number(values.top);

// The whole file as bytes (a Buffer may be 4 GB; a string may not be 1 GB).
let size;
try {
  size = statSync(file).size;
} catch {
  console.error(`heap-summary: cannot read ${file}`);
  process.exit(2);
}
const bytes = Buffer.allocUnsafe(size);
const fd = openSync(file, 'r');
for (let at = 0; at < size; ) at += readSync(fd, bytes, at, Math.min(1 << 30, size - at), at);

/** Where `"key":` starts its value. */
function valueAt(key, from = 0) {
  const at = bytes.indexOf(`"${key}":`, from);
  if (at < 0) throw new Error(`no ${key} in the snapshot`);
  return at + key.length + 3;
}

/** The numbers of the array at `at` (which starts with `[`). */
function numbers(at, count) {
  const out = new Float64Array(count);
  let n = 0;
  let v = 0;
  let inNumber = false;
  for (let i = at + 1; ; i++) {
    const c = bytes[i];
    if (c >= 48 && c <= 57) {
      v = v * 10 + (c - 48);
      inNumber = true;
    } else {
      if (inNumber) out[n++] = v;
      [v, inNumber] = [0, false];
      if (c === 93) break;
    }
  }
  if (n !== count) throw new Error(`expected ${count} numbers, read ${n}`);
  return out;
}

/** The strings of the array at `at`. */
function strings(at) {
  const out = [];
  let i = at + 1;
  for (;;) {
    while (bytes[i] !== 34 && bytes[i] !== 93) i++;
    if (bytes[i] === 93) break;
    let j = i + 1;
    while (bytes[j] !== 34) j += bytes[j] === 92 ? 2 : 1;
    out.push(JSON.parse(bytes.toString('utf8', i, j + 1)));
    i = j + 1;
  }
  return out;
}

const metaStart = valueAt('snapshot');
const metaEnd = bytes.indexOf('"nodes":', metaStart);
const snapshot = JSON.parse(`${bytes.toString('utf8', metaStart, metaEnd).trim().replace(/,$/, '')}`);
const { meta, node_count: nodeCount, edge_count: edgeCount } = snapshot;
const nodes = numbers(valueAt('nodes', metaEnd), nodeCount * meta.node_fields.length);
const edges = numbers(valueAt('edges', metaEnd), edgeCount * meta.edge_fields.length);
const names = strings(valueAt('strings', metaEnd));

const NF = meta.node_fields.length;
const EF = meta.edge_fields.length;
const [nType, nName, nSize, nEdges] = ['type', 'name', 'self_size', 'edge_count'].map((f) => meta.node_fields.indexOf(f));
const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => meta.edge_fields.indexOf(f));
const nodeTypes = meta.node_types[nType];
const edgeTypes = meta.edge_types[eType];

// each node's first edge, and each node's retainers (reverse edges, weak ones left out)
const firstEdge = new Float64Array(nodeCount + 1);
for (let k = 0, e = 0; k < nodeCount; k++) {
  firstEdge[k] = e;
  e += nodes[k * NF + nEdges];
  firstEdge[k + 1] = e;
}
const retainerCount = new Uint32Array(nodeCount + 1);
for (let k = 0; k < nodeCount; k++)
  for (let e = firstEdge[k]; e < firstEdge[k + 1]; e++)
    if (edgeTypes[edges[e * EF + eType]] !== 'weak') retainerCount[edges[e * EF + eTo] / NF]++;
const retainerStart = new Uint32Array(nodeCount + 1);
for (let k = 0; k < nodeCount; k++) retainerStart[k + 1] = retainerStart[k] + retainerCount[k];
const retainers = new Uint32Array(retainerStart[nodeCount]);
const retainerEdge = new Uint32Array(retainerStart[nodeCount]);
const fill = retainerStart.slice(0, nodeCount);
for (let k = 0; k < nodeCount; k++)
  for (let e = firstEdge[k]; e < firstEdge[k + 1]; e++) {
    if (edgeTypes[edges[e * EF + eType]] === 'weak') continue;
    const to = edges[e * EF + eTo] / NF;
    retainers[fill[to]] = k;
    retainerEdge[fill[to]++] = e;
  }

const typeOf = (k) => nodeTypes[nodes[k * NF + nType]];
const nameOf = (k) => names[nodes[k * NF + nName]];
const edgeName = (e) => {
  const t = edgeTypes[edges[e * EF + eType]];
  const v = edges[e * EF + eName];
  return t === 'element' || t === 'hidden' ? `[${t}]` : String(names[v] ?? v);
};

// the heap by kind and constructor
const byName = new Map();
let heap = 0;
for (let k = 0; k < nodeCount; k++) {
  const t = typeOf(k);
  const s = nodes[k * NF + nSize];
  if (t === 'native' && /ArrayBuffer|backing/i.test(nameOf(k))) continue;
  heap += s;
  const key = t === 'object' || t === 'native' || t === 'closure' ? `${t} ${nameOf(k)}` : t;
  const got = byName.get(key) ?? [0, 0];
  got[0] += s;
  got[1]++;
  byName.set(key, got);
}

const GENERIC =
  /^(ArrayBuffer|Uint8Array|Uint16Array|Uint32Array|Int32Array|Float64Array|Buffer|FastBuffer|DataView|Array|array|Object|Map|Set|\(object elements\)|\(map descriptors\)|system \/ .*|)$/;

/** Who holds node `k`: up to `depth` strong retainers, skipping the internal ones, as `Holder.property`. */
function holderOf(k, depth) {
  const path = [];
  let at = k;
  const seen = new Set([k]);
  for (let d = 0; d < depth; d++) {
    let best;
    for (let r = retainerStart[at]; r < retainerStart[at + 1]; r++) {
      const from = retainers[r];
      const t = typeOf(from);
      if (seen.has(from) || t === 'synthetic' || t === 'hidden') continue;
      best = [from, retainerEdge[r]];
      break;
    }
    if (!best) break;
    const [from, e] = best;
    seen.add(from);
    path.push(`${nameOf(from) || typeOf(from)}.${edgeName(e)}`);
    at = from;
    const name = nameOf(from);
    // a typed array, a Buffer, an array, a plain object or a map holding it: go on to what holds them
    if (!GENERIC.test(name)) break;
  }
  return path.reverse().join(' ← ');
}

const buffers = new Map();
let bufferBytes = 0;
for (let k = 0; k < nodeCount; k++) {
  if (typeOf(k) !== 'native' || !/ArrayBuffer|backing/i.test(nameOf(k))) continue;
  const s = nodes[k * NF + nSize];
  bufferBytes += s;
  const key = holderOf(k, 9);
  const got = buffers.get(key) ?? [0, 0];
  got[0] += s;
  got[1]++;
  buffers.set(key, got);
}

const mb = (v) => (v / 2 ** 20).toFixed(1);
const list = (m) =>
  [...m]
    .sort((a, b) => b[1][0] - a[1][0])
    .slice(0, top)
    .map(([k, [s, n]]) => `  ${mb(s).padStart(8)} MB  ${String(n).padStart(9)}  ${k}`)
    .join('\n');
console.log(`heap (self sizes, ${nodeCount} nodes): ${mb(heap)} MB\n${list(byName)}`);
console.log(`\narray buffers' backing stores: ${mb(bufferBytes)} MB\n${list(buffers)}`);
