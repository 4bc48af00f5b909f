import { type BuildModelInput, buildIndex } from '../build/builder.js';
import { type CoreDeps, MemoryMissingLog, silentLogger } from '../http/deps.js';
import type { Address } from '../index/blake3.js';
import { loadIndex, type WholeIndexStore } from '../index/index-store.js';
import { MemoryObjectStore } from '../index/memory-object-store.js';
import type { SourceConfig } from '../index/source-kinds.js';
import { noMetrics } from '../observe/metrics.js';
import { MemorySourceHealth } from '../sources/source-health.js';

/**
 * SYNTHETIC fixture models for unit tests. Ids, paths and hashes are made up for tests and
 * are not real model-host data (real data is recorded under fixtures/ and used where realism matters).
 */
export const SYNTHETIC_MODELS: BuildModelInput[] = [
  {
    id: 'synthetic-org/tiny-llama-GGUF',
    revision: 'a'.repeat(40),
    license: 'mit',
    files: [
      { path: 'README.md', size: 120, sha256: '1'.repeat(64) },
      { path: 'tiny-llama-Q4_K_M.gguf', size: 1_000_000, sha256: '2'.repeat(64) },
      { path: 'tiny-llama-Q8_0.gguf', size: 2_000_000, sha256: '3'.repeat(64) },
    ],
    facts: {
      pipeline_tag: 'text-generation',
      tags: ['gguf', 'llama'],
      parameters: 1_000_000,
      context: 4096,
      gguf: [
        { path: 'tiny-llama-Q4_K_M.gguf', architecture: 'llama', quantization: 'Q4_K_M', context_length: 4096, parameters: 1_000_000 },
      ],
    },
    row: {
      downloads: 10,
      likes: 2,
      trendingScore: 9,
      pipeline_tag: 'text-generation',
      library_name: 'gguf',
      tags: ['gguf', 'llama', 'text-generation'],
    },
    sources: [
      { source: 'mirror-a', type: 'http' },
      { source: 'mirror-b', type: 'http', paths: ['tiny-llama-Q4_K_M.gguf'] },
    ],
  },
  {
    id: 'synthetic-org/bert-ish',
    revision: 'b'.repeat(40),
    license: 'apache-2.0',
    files: [
      { path: 'config.json', size: 570, sha256: '4'.repeat(64) },
      { path: 'model.safetensors', size: 440_000_000, sha256: '5'.repeat(64) },
      { path: 'nested/dir/vocab.txt', size: 231_508, sha256: '6'.repeat(64) },
    ],
    facts: { pipeline_tag: 'fill-mask', library_name: 'transformers', tags: ['transformers', 'bert'] },
    row: {
      downloads: 1000,
      likes: 50,
      trendingScore: 5,
      pipeline_tag: 'fill-mask',
      library_name: 'transformers',
      tags: ['transformers', 'bert', 'fill-mask'],
    },
    sources: [{ source: 'mirror-a', type: 'http' }],
  },
  {
    id: 'Other-Owner/unlisted-model',
    revision: 'c'.repeat(40),
    license: null,
    files: [{ path: 'weights.bin', size: 42, sha256: '7'.repeat(64) }],
    row: { listed: false },
    sources: [{ source: 'mirror-b', type: 'http' }],
  },
];

export interface TestHub {
  objects: MemoryObjectStore;
  index: WholeIndexStore;
  catalog: Address;
  health: MemorySourceHealth;
  deps: CoreDeps;
}

/** An in-memory hub over {@link SYNTHETIC_MODELS} (or the given models), with two http mirrors. */
export async function createTestHub(
  options: { models?: BuildModelInput[]; sources?: SourceConfig[]; order?: string[]; date?: string } = {},
): Promise<TestHub> {
  const objects = new MemoryObjectStore(() => 1_700_000_000_000);
  const sources = options.sources ?? [
    { name: 'mirror-a', display: 'Mirror A', token: 'a', kind: 'http', url: 'http://127.0.0.1:1/a/{id}/{revision}/{path}' },
    { name: 'mirror-b', display: 'Mirror B', token: 'b', kind: 'http', url: 'http://localhost:2/b/{id}/{revision}/{path}' },
  ];
  const health = new MemorySourceHealth(sources, options.order ?? sources.map((s) => s.name));
  const built = await buildIndex(objects, {
    date: options.date ?? '2026-11-22',
    models: options.models ?? SYNTHETIC_MODELS,
    display: (s) => health.display(s),
    now: () => 1_700_000_000_000,
  });
  const index = await loadIndex(objects, built.catalog);
  const deps: CoreDeps = {
    index: () => index,
    health,
    objects,
    missing: new MemoryMissingLog(),
    settings: {
      publisherTokens: ['test-publisher-token'],
      registryTokens: ['test-registry-token'],
      maxRequestBytes: 32 * 1024 * 1024,
      role: 'server',
      version: '0.1.0',
      serverId: 'test',
    },
    now: () => 1_700_000_000_000,
    log: silentLogger,
    metrics: noMetrics,
    defer: (p) => {
      p.catch(() => {});
    },
  };
  return { objects, index, catalog: built.catalog, health, deps };
}
