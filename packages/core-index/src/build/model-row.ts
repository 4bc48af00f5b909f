import type { Address } from '../index/blake3.js';
import { blake3Hex } from '../index/blake3.js';
import { canonicalBytes } from '../index/canonical-json.js';
import type { FileRecord, ModelFacts, ModelObject, ModelRow, ScanVerdict, SignatureVerdict, SourceObject } from '../index/schemas.js';
import { sha256Hex } from '../index/sha256.js';
import { isWeightFile } from '../index/weights.js';

/** One model of a build's input (`BuildInput.models`). */
export interface BuildModelInput {
  id: string;
  /** the upstream commit; computed from the file listing when absent (local trees) */
  revision?: string;
  license?: string | null;
  files: FileRecord[];
  facts?: ModelFacts;
  /** the verdict on the revision's own `model.sig`, and the public host's scan verdicts (index facts: chained, logged) */
  signature?: SignatureVerdict;
  scan?: ScanVerdict;
  /** browse facts from the upstream listing */
  row?: Pick<
    ModelRow,
    'downloads' | 'likes' | 'trendingScore' | 'createdAt' | 'lastModified' | 'tags' | 'pipeline_tag' | 'library_name'
  > & {
    listed?: boolean;
  };
  sources: Array<Omit<SourceObject, 'kind' | 'model' | 'revision'>>;
}

/** A model's files in path order (a model object lists them so). */
export function filesByPath(files: readonly FileRecord[]): FileRecord[] {
  return [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The model object of an input (its files already in path order), chained to `prev`. */
export function modelObjectOf(m: BuildModelInput, files: readonly FileRecord[], revision: string, prev: Address | null): ModelObject {
  return {
    kind: 'model-hub.model',
    id: m.id,
    revision,
    license: m.license ?? null,
    files: files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })),
    facts: m.facts ?? {},
    ...(m.signature ? { signature: m.signature } : {}),
    ...(m.scan ? { scan: m.scan } : {}),
    prev,
  };
}

/** The source objects of an input, one per source it lists. */
export function sourceObjectsOf(m: BuildModelInput, revision: string): SourceObject[] {
  return m.sources.map((s) => ({ kind: 'model-hub.source', model: m.id, revision, ...s }) satisfies SourceObject);
}

/** A stable 24-hex `_id` for a model id (the model host uses 24-hex object ids). */
export function modelObjectId(id: string): string {
  return blake3Hex(encoder.encode(`model:${id}`)).slice(0, 24);
}
const encoder = new TextEncoder();

/** A model's browse row: the input's listing facts, its files (sorted by path) and its model object's address. */
export function modelRow(
  m: BuildModelInput,
  files: readonly FileRecord[],
  revision: string,
  modelAddress: Address,
  display: (source: string) => string,
): ModelRow {
  const weight = files.reduce((n, f) => n + (isWeightFile(f.path) ? f.size : 0), 0);
  const listed = m.row?.listed ?? true;
  const [owner] = m.id.split('/');
  const row: ModelRow = {
    _id: modelObjectId(m.id),
    id: m.id,
    modelId: m.id,
    sha: revision,
    author: owner,
    private: false,
    gated: false,
    disabled: false,
    svc: {
      manifest: modelAddress,
      files: files.length,
      weight_bytes: weight,
      ...(listed && m.facts?.parameters !== undefined ? { parameters: m.facts.parameters } : {}),
      ...(listed && m.facts?.context !== undefined ? { context: m.facts.context } : {}),
      ...(listed ? {} : { listed: false }),
      sources: [...new Set(m.sources.map((s) => display(s.source)))],
      ...(m.signature ? { signature: m.signature } : {}),
    },
  };
  if (listed) {
    const r = m.row ?? {};
    if (r.pipeline_tag ?? m.facts?.pipeline_tag) row.pipeline_tag = r.pipeline_tag ?? m.facts?.pipeline_tag;
    if (r.library_name ?? m.facts?.library_name) row.library_name = r.library_name ?? m.facts?.library_name;
    if (r.likes !== undefined) row.likes = r.likes;
    if (r.downloads !== undefined) row.downloads = r.downloads;
    if (r.trendingScore !== undefined) row.trendingScore = r.trendingScore;
  }
  if (m.row?.createdAt ?? m.facts?.createdAt) row.createdAt = m.row?.createdAt ?? m.facts?.createdAt;
  if (m.row?.lastModified ?? m.facts?.lastModified) row.lastModified = m.row?.lastModified ?? m.facts?.lastModified;
  const tags = m.row?.tags ?? m.facts?.tags;
  if (tags) row.tags = tags;
  return row;
}

/**
 * {@link modelRow}, made once when first asked. A function of its own, so what it keeps alive until then is what the
 * row is made from and nothing else of the builder's (a held catalog row kept a model's objects before).
 */
export function lazyRow(
  m: BuildModelInput,
  files: readonly FileRecord[],
  revision: string,
  modelAddress: Address,
  display: (source: string) => string,
): () => ModelRow {
  let made: ModelRow | undefined;
  return () => (made ??= modelRow(m, files, revision, modelAddress, display));
}

/** `rest` with a `row` member read through `rowOf` (an enumerable getter: a serializer sees a plain member). */
export function withRow<T extends object>(rest: T, rowOf: () => ModelRow): T & { readonly row: ModelRow } {
  return Object.defineProperty(rest, 'row', { get: rowOf, enumerable: true }) as T & { readonly row: ModelRow };
}

/**
 * A deterministic 40-hex revision for a local tree: the first 40 hex of the SHA-256 of the canonical
 * listing `[{path,size,sha256}]` sorted by path. The same tree always gets the same revision.
 */
export function treeRevision(files: FileRecord[]): string {
  const sorted = [...files]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 }));
  return sha256Hex(canonicalBytes(sorted)).slice(0, 40);
}
