import { IndexPagesWriter } from '../index/index-pages.js';
import { MemoryObjectStore } from '../index/memory-object-store.js';
import type { PagedEntry } from '../index/page-layout.js';

/** A fixed model for {@link pagesFormat} (SYNTHETIC). */
function probeEntry(i: number): PagedEntry {
  const id = i % 2 ? `probe.org/model-${i}` : `probe/Model-${i}-GGUF`;
  const address = `blake3:${String(i % 10).repeat(64)}`;
  const revision = 'a'.repeat(40);
  const source = {
    address: `blake3:${'f'.repeat(64)}`,
    object: { kind: 'model-hub.source', model: id, revision, source: 'p', type: 'http' },
  } as const;
  return {
    id,
    address,
    row: {
      _id: '0'.repeat(24),
      id,
      modelId: id,
      sha: revision,
      author: id.split('/')[0] as string,
      private: false,
      gated: false,
      disabled: false,
      svc: { manifest: address, files: 1, weight_bytes: i, sources: ['p'], ...(i === 3 ? { listed: false } : {}) },
      downloads: i * 7,
      likes: 9 - i,
      trendingScore: i % 3,
      createdAt: `2024-01-0${i + 1}T00:00:00.000Z`,
      ...(i % 2 ? { lastModified: `2025-0${i + 1}-01T00:00:00.000Z` } : {}),
      tags: ['t', `t${i % 2}`],
      pipeline_tag: 'text-generation',
      library_name: 'gguf',
    },
    object: {
      kind: 'model-hub.model',
      id,
      revision,
      license: null,
      files: [
        { path: `m-${i}.gguf`, size: 1000 + i, sha256: String(i % 3).repeat(64) },
        { path: 'README.md', size: 10, sha256: 'e'.repeat(64) },
      ],
      facts: {},
      prev: null,
    },
    sources: [source],
  };
}

/**
 * A fingerprint of how index pages are written: the pages root of six fixed models as {@link IndexPagesWriter}
 * writes it now (in memory). A build whose pages would come out otherwise (another layout, another id bucket form,
 * another entry hash) gets another fingerprint and reuses no page of a memo written before, whatever its version says.
 */
export async function pagesFormat(): Promise<string> {
  const writer = new IndexPagesWriter(new MemoryObjectStore(() => 0));
  for (let i = 0; i < 6; i++) await writer.add(probeEntry(i));
  return (await writer.finish(`blake3:${'0'.repeat(64)}`, '2000-01-01')).slice(7, 39);
}
