import { type BuildInput, type BuildModelInput, buildIndex } from '../build/builder.js';
import type { Address } from '../index/blake3.js';
import type { ListQuery, ObjectStore, PutOptions } from '../index/object-store.js';

const TASKS = ['text-generation', 'fill-mask', 'image-classification', 'automatic-speech-recognition', undefined];
const LIBRARIES = ['transformers', 'gguf', 'diffusers', undefined];

/** A 64-hex digest made from a number (SYNTHETIC: no real file has it). */
function hexOf(n: number, salt: string): string {
  return (n.toString(16).padStart(12, '0') + salt).repeat(8).slice(0, 64);
}

/**
 * `n` SYNTHETIC models (made-up ids, sizes and hashes, 4 small files each, as `pnpm bench` builds them), spread over
 * owners (some dotted, for dash aliases), tasks, libraries, tags, downloads, likes and dates, so every look-up, sort
 * and filter has work to do. Models `i` and `i + 1` share one file (a digest held by two models).
 */
export function syntheticModels(n: number): BuildModelInput[] {
  return Array.from(syntheticModelStream(n));
}

/** {@link syntheticModels} one at a time, for a build of any size (nothing held). */
export function* syntheticModelStream(n: number): Generator<BuildModelInput> {
  for (let i = 0; i < n; i++) yield syntheticModel(i, n);
}

/** The id of SYNTHETIC model `i` of {@link syntheticModels} (tests and benches pick ids without the model list). */
export function syntheticId(i: number): string {
  const owner = i % 97 === 5 ? `dotted.org-${i % 7}` : `synthetic-org-${i % 211}`;
  return `${owner}/model-${i}${i % 3 === 0 ? '-GGUF' : ''}`;
}

/** SYNTHETIC model `i` of `n` (the model {@link syntheticModelStream} gives at `i`). */
export function syntheticModel(i: number, n: number): BuildModelInput {
  const task = TASKS[i % TASKS.length];
  const library = LIBRARIES[i % LIBRARIES.length];
  const shared = hexOf(Math.floor(i / 2), 'c');
  return {
    id: syntheticId(i),
    revision: hexOf(i, 'a').slice(0, 40),
    license: 'mit',
    files: [
      { path: 'README.md', size: 100 + (i % 50), sha256: hexOf(i, '1') },
      { path: 'config.json', size: 500 + (i % 70), sha256: shared },
      { path: `model-${i}.Q4_K_M.gguf`, size: 4_000_000 + i, sha256: hexOf(i, '3') },
      { path: 'tokenizer.json', size: 2000 + (i % 90), sha256: hexOf(i, '4') },
    ],
    row: {
      downloads: (i * 7919) % 100_003,
      likes: (i * 104_729) % 5003,
      trendingScore: n - i,
      createdAt: new Date(Date.UTC(2024, 0, 1) + ((i * 7_777_777) % 60_000_000_000)).toISOString(),
      ...(i % 11 === 0 ? {} : { lastModified: new Date(Date.UTC(2025, 0, 1) + ((i * 3_333_331) % 30_000_000_000)).toISOString() }),
      ...(task ? { pipeline_tag: task } : {}),
      ...(library ? { library_name: library } : {}),
      tags: [`t${i % 13}`, ...(i % 3 === 0 ? ['gguf'] : []), ...(library ? [library] : [])],
      ...(i % 17 === 3 ? { listed: false } : {}),
    },
    sources: [
      { source: 'mirror-a', type: 'http' as const },
      ...(i % 2 === 0 ? [{ source: 'mirror-b', type: 'http' as const, paths: ['README.md'] }] : []),
    ],
  };
}

/** Build a day with its index pages; returns the catalog and the pages root. `reuse: false`: no build memo read. */
export async function buildWithPages(
  store: ObjectStore,
  models: BuildInput['models'],
  date = '2026-11-28',
  options: Pick<BuildInput, 'reuse' | 'onModelsPage' | 'since' | 'stamp'> = {},
): Promise<{ catalog: Address; pages: Address }> {
  const built = await buildIndex(store, { date, models, pages: true, ...options });
  if (!built.day.pages) throw new Error('the build wrote no index pages');
  return { catalog: built.catalog, pages: built.day.pages as Address };
}

/** An {@link ObjectStore} that counts every storage read it passes on (`get`, `meta`, `has`, `list`, `readRef`). */
export class CountingObjectStore implements ObjectStore {
  reads = 0;
  readonly addresses: string[] = [];

  constructor(private readonly inner: ObjectStore) {}

  /** the ranged reads since the last reset: address, start, length */
  readonly ranges: Array<[string, number, number]> = [];

  reset(): void {
    this.reads = 0;
    this.addresses.length = 0;
    this.ranges.length = 0;
  }

  get(address: Address) {
    this.reads++;
    this.addresses.push(address);
    return this.inner.get(address);
  }
  readBytes(address: Address) {
    this.reads++;
    this.addresses.push(address);
    return this.inner.readBytes ? this.inner.readBytes(address) : this.inner.get(address).then((s) => s?.bytes);
  }
  readRange(address: Address, start: number, length: number) {
    this.reads++;
    this.addresses.push(address);
    this.ranges.push([address, start, length]);
    if (this.inner.readRange) return this.inner.readRange(address, start, length);
    return this.inner.get(address).then((s) => (s && s.bytes.length >= start + length ? s.bytes.slice(start, start + length) : undefined));
  }
  meta(address: Address) {
    this.reads++;
    return this.inner.meta(address);
  }
  has(address: Address) {
    this.reads++;
    return this.inner.has(address);
  }
  put(bytes: Uint8Array, options: PutOptions) {
    return this.inner.put(bytes, options);
  }
  list(query: ListQuery) {
    this.reads++;
    return this.inner.list(query);
  }
  readRef(name: string) {
    this.reads++;
    return this.inner.readRef(name);
  }
  writeRef(name: string, value: string) {
    return this.inner.writeRef(name, value);
  }
}
