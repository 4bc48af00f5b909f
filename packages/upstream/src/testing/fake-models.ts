import { sha256Hex } from '@hub/core-index';
import type { FakeFile, FakeModel, FakeUpstreamData, FakeUpstreamOptions, TrendingRow } from './fake-types.js';

/** The fake host's models, made from the real rows it is given; what is made up is SYNTHETIC (fake-upstream.ts). */

export const enc = new TextEncoder();

/** SHA-256 records per repository: the first variant of each file. */
export type ShaRecords = Map<string, Array<{ path: string; sha256: string; size: number | null }>>;

export function syntheticSha(id: string, generation: number): string {
  return sha256Hex(enc.encode(`SYNTHETIC commit ${id} ${generation}`)).slice(0, 40);
}

function filler(size: number, seed: string): Uint8Array {
  const out = new Uint8Array(size);
  const pattern = enc.encode(`SYNTHETIC filler for ${seed}\n`);
  for (let i = 0; i < size; i++) out[i] = pattern[i % pattern.length] as number;
  return out;
}

/** One listing row's model at a generation (0 first, then one per `bump`). */
export function makeModel(
  row: TrendingRow,
  generation: number,
  records: ShaRecords,
  data: FakeUpstreamData,
  options: FakeUpstreamOptions,
): FakeModel {
  const id = row.id;
  const name = id.split('/')[1] as string;
  const files: FakeFile[] = [];
  const small = (path: string, text: string) => {
    const bytes = enc.encode(text);
    files.push({ path, size: bytes.byteLength, bytes });
  };
  small('.gitattributes', '*.gguf filter=lfs diff=lfs merge=lfs -text\n*.safetensors filter=lfs diff=lfs merge=lfs -text\n# SYNTHETIC\n');
  small('config.json', `${JSON.stringify({ _note: 'SYNTHETIC fixture file, not the real config', id, generation }, null, 2)}\n`);
  small('README.md', `# ${id}\n\nSYNTHETIC fixture README, generation ${generation}.\n`);
  const recs = records.get(id)?.filter((r) => !files.some((f) => f.path === r.path));
  if (recs?.length) {
    for (const r of recs.slice(0, 4)) {
      const size = r.size ?? 1_000_000 + (Number.parseInt(r.sha256.slice(0, 6), 16) % 1_000_000); // SYNTHETIC when the record has none
      files.push({ path: r.path, size, lfs: r.sha256, ...(/\.gguf$/i.test(r.path) ? { serve: data.gguf } : {}) });
    }
  } else if (row.tags?.includes('gguf')) {
    files.push({ path: `${name}-Q4_K_M.gguf`, size: data.gguf.byteLength, lfs: sha256Hex(data.gguf), serve: data.gguf });
  } else {
    const sha = sha256Hex(enc.encode(`SYNTHETIC weights ${id} ${generation}`));
    files.push({ path: 'model.safetensors', size: 5_000_000 + (Number.parseInt(sha.slice(0, 6), 16) % 1_000_000), lfs: sha });
  }
  if (id.length % 3 === 0) small('nested/dir/tokenizer_config.json', `{"_note":"SYNTHETIC","id":${JSON.stringify(id)}}\n`);
  const flags = (list?: string[]) => list?.includes(id) ?? false;
  const apiRow: Record<string, unknown> = {
    _id: sha256Hex(enc.encode(`SYNTHETIC _id ${id}`)).slice(0, 24),
    id,
    modelId: id,
    author: row.author ?? id.split('/')[0],
    sha: syntheticSha(id, generation),
    private: flags(options.private),
    gated: flags(options.gated) ? 'manual' : false,
    disabled: flags(options.disabled),
    downloads: row.downloads,
    likes: row.likes,
    trendingScore: row.trendingScore,
    ...(row.pipelineTag ? { pipeline_tag: row.pipelineTag } : {}),
    ...(row.libraryName ? { library_name: row.libraryName } : {}),
    tags: row.tags ?? [],
    createdAt: row.createdAt,
    lastModified: row.lastModified,
  };
  return { id, sha: apiRow.sha as string, generation, row: apiRow, files };
}

/** The recorded bert-base-uncased tree as a model (not trending: reachable by id only, as the missing log asks for it). */
export function bertModel(bt: NonNullable<FakeUpstreamData['bertTree']>): FakeModel {
  const files: FakeFile[] = bt.tree
    .filter((e) => e.type === 'file')
    .map((e) =>
      e.lfs
        ? { path: e.path, size: e.lfs.size, lfs: e.lfs.oid }
        : { path: e.path, size: e.size ?? 0, bytes: filler(e.size ?? 0, `${bt.repo}/${e.path}`) },
    );
  return {
    id: bt.repo,
    sha: bt.revision,
    generation: 0,
    row: {
      id: bt.repo,
      modelId: bt.repo,
      sha: bt.revision,
      private: false,
      gated: false,
      disabled: false,
      author: bt.repo.split('/')[0],
      pipeline_tag: 'fill-mask',
      library_name: 'transformers',
      tags: ['transformers', 'bert', 'fill-mask', 'license:apache-2.0'],
    },
    files,
  };
}
