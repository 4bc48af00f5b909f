import {
  type BuildModelInput,
  boundedAll,
  createSha256,
  encodePath,
  type FileRecord,
  type GgufFacts,
  ggufFactsOf,
  isLaterSplit,
  isMmproj,
  isModelId,
  iterateBody,
  type Logger,
  type ModelFacts,
  type ModelObject,
  type ParsedGguf,
  QUANT_PREFERENCE,
  quantOf,
} from '@hub/core-index';
import type { UpstreamClient } from './client.js';
import { errorOf, isTransient, UpstreamError } from './errors.js';
import { revisionVerdicts, type VerdictOptions } from './verdicts.js';

/** A row of the upstream's `GET /api/models?expand[]=…` (or `GET /api/models/{id}`), the fields the run reads. */
export interface UpstreamRow {
  id: string;
  _id?: string;
  modelId?: string;
  sha?: string;
  private?: boolean;
  gated?: boolean | string;
  disabled?: boolean;
  downloads?: number;
  likes?: number;
  trendingScore?: number;
  pipeline_tag?: string;
  library_name?: string;
  tags?: string[];
  createdAt?: string;
  lastModified?: string;
  cardData?: { license?: string | string[] };
  /**
   * The host's GGUF block (`expand[]=gguf`), read from the repository's GGUF header: architecture, context length,
   * `total` (parameters) and the chat template.
   */
  gguf?: { total?: number; architecture?: string; context_length?: number; chat_template?: string };
}

/** An entry of `GET /api/models/{id}/tree/{sha}?recursive=true`. */
export interface UpstreamTreeEntry {
  type: 'file' | 'directory' | string;
  path: string;
  size?: number;
  oid?: string;
  lfs?: { oid: string; size: number; pointerSize?: number };
}

/** Why a model is not in today's index. */
export type SkipReason =
  | 'gated'
  | 'private'
  | 'disabled'
  | 'bad-id'
  | 'not-found'
  | 'no-revision'
  | 'empty'
  | 'file-over-cap'
  | 'size-mismatch'
  | 'bad-lfs-oid'
  | 'error';

export type ModelWork =
  | {
      status: 'ok';
      model: BuildModelInput;
      reused: boolean;
      downloaded: number;
      /** a GGUF header read failed for a transient reason: not kept as finished work, read again next run */
      incomplete?: boolean;
    }
  | { status: 'skipped'; id: string; reason: SkipReason; detail: string; downloaded?: number };

export interface IndexModelContext {
  client: UpstreamClient;
  /** upstream base URL, no trailing slash */
  upstream: string;
  /** Largest non-LFS file downloaded and hashed (bytes). */
  smallFileCap: number;
  /** GGUF headers read per model (the preferred quantisation first). */
  ggufHeaders: number;
  /** Yesterday's model object for an id, when there is one: an unchanged revision reuses its files and facts. */
  previous?: (id: string) => Promise<ModelObject | undefined>;
  /** Small (non-LFS) files downloaded at once per model (default 4). */
  smallFileConcurrency?: number;
  /** Health key of the upstream as a byte source (`huggingface.co`). */
  hfSource: string;
  log: Logger;
  /** the revision's model.sig check and the host's scan verdicts (verdicts.ts) */
  verdicts?: VerdictOptions;
}

const SHA = /^[0-9a-f]{40}$/;
const SHA256 = /^[0-9a-f]{64}$/;

/** Why a listed row is not public, or undefined when it is. */
export function notPublic(row: UpstreamRow): { reason: SkipReason; detail: string } | undefined {
  if (!isModelId(row.id)) return { reason: 'bad-id', detail: `${JSON.stringify(String(row.id).slice(0, 200))} is not an owner/name id` };
  if (row.private) return { reason: 'private', detail: 'private on the upstream' };
  if (row.gated) return { reason: 'gated', detail: `gated (${String(row.gated)}) on the upstream` };
  if (row.disabled) return { reason: 'disabled', detail: 'disabled on the upstream' };
  return undefined;
}

export function repoPath(id: string): string {
  return id
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');
}

/** The licence id: `license:<id>` among the tags, else the card's. */
export function licenseOf(row: UpstreamRow): string | null {
  const tag = row.tags?.find((t) => t.startsWith('license:'));
  if (tag) return tag.slice('license:'.length) || null;
  const card = row.cardData?.license;
  if (typeof card === 'string') return card;
  if (Array.isArray(card) && typeof card[0] === 'string') return card[0];
  return null;
}

const int = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v) : undefined);

/** Browse facts for the catalog row. */
export function rowFacts(row: UpstreamRow, listed: boolean): NonNullable<BuildModelInput['row']> {
  const out: NonNullable<BuildModelInput['row']> = {};
  if (!listed) out.listed = false;
  const d = int(row.downloads);
  const l = int(row.likes);
  const t = int(row.trendingScore);
  if (d !== undefined) out.downloads = d;
  if (l !== undefined) out.likes = l;
  if (t !== undefined) out.trendingScore = t;
  if (typeof row.pipeline_tag === 'string') out.pipeline_tag = row.pipeline_tag;
  if (typeof row.library_name === 'string') out.library_name = row.library_name;
  if (Array.isArray(row.tags)) out.tags = row.tags.filter((x): x is string => typeof x === 'string');
  if (typeof row.createdAt === 'string') out.createdAt = row.createdAt;
  if (typeof row.lastModified === 'string') out.lastModified = row.lastModified;
  return out;
}

/** The full commit of `main`, from the row or `GET /api/models/{id}/revision/main`. */
export async function resolveRevision(ctx: IndexModelContext, row: UpstreamRow): Promise<string | undefined> {
  if (typeof row.sha === 'string' && SHA.test(row.sha)) return row.sha;
  const { value } = await ctx.client.json<UpstreamRow>(`${ctx.upstream}/api/models/${repoPath(row.id)}/revision/main`);
  return typeof value.sha === 'string' && SHA.test(value.sha) ? value.sha : undefined;
}

/**
 * Why the host truly refuses a repository, read from `X-Error-Code` / `X-Error-Message` as huggingface_hub's
 * `hf_raise_for_status` reads them: `RepoNotFound` (deleted, or private since the listing; the host answers
 * 401 for both), `GatedRepo`, a 403 "Access to this resource is disabled.", a 404. Undefined for anything
 * else (a transient failure, or a refusal of our token, which is the operator's to fix).
 */
export function refusal(e: UpstreamError): { reason: SkipReason; detail: string } | undefined {
  const code = e.code;
  if (code === 'RepoNotFound' || code === 'RevisionNotFound' || code === 'EntryNotFound')
    return { reason: 'not-found', detail: `${code}: ${e.message}` };
  if (code === 'GatedRepo') return { reason: 'gated', detail: `gated since the listing (${e.message})` };
  if (e.status === 403 && (code === 'DisabledRepo' || /disabled/i.test(e.hostMessage ?? '')))
    return { reason: 'disabled', detail: `disabled on the upstream (${e.message})` };
  if (e.status === 404) return { reason: 'not-found', detail: e.message };
  if (e.status === 401 && !/invalid credentials/i.test(e.hostMessage ?? ''))
    return { reason: 'not-found', detail: `the upstream answers 401 (deleted or private): ${e.message}` };
  if (e.status === 403) return { reason: 'gated', detail: `the upstream refuses its files (${e.message})` };
  return undefined;
}

class Skip extends Error {
  constructor(
    readonly reason: SkipReason,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** Download one file and hash it while it streams, stopping past `cap` bytes. */
async function hashRemote(
  ctx: IndexModelContext,
  url: string,
  expected: number,
  signal?: AbortSignal,
): Promise<{ sha256: string; size: number }> {
  const res = await ctx.client.request(url, signal ? { signal } : {});
  if (!res.ok) {
    void res.body?.cancel().catch(() => {});
    throw errorOf(url, res);
  }
  const h = createSha256();
  let size = 0;
  const limit = Math.min(ctx.smallFileCap, expected);
  for await (const chunk of iterateBody(res.body)) {
    if (signal?.aborted) {
      void res.body?.cancel().catch(() => {});
      throw signal.reason;
    }
    size += chunk.byteLength;
    if (size > limit) {
      void res.body?.cancel().catch(() => {});
      throw new Skip(
        size > ctx.smallFileCap ? 'file-over-cap' : 'size-mismatch',
        `${url} sent more than the ${limit} bytes the tree lists`,
      );
    }
    h.update(chunk);
  }
  ctx.client.stats.bytes += size;
  return { sha256: h.hex(), size };
}

async function listTree(ctx: IndexModelContext, id: string, revision: string): Promise<UpstreamTreeEntry[]> {
  const out: UpstreamTreeEntry[] = [];
  for await (const page of ctx.client.pages<UpstreamTreeEntry>(
    `${ctx.upstream}/api/models/${repoPath(id)}/tree/${revision}?recursive=true`,
  )) {
    out.push(...page);
  }
  return out;
}

/** Which GGUF files get their header read: the preferred quantisation first, then path order, at most `n`. */
export function ggufHeaderFiles(paths: string[], n: number): string[] {
  const candidates = paths.filter((p) => /\.gguf$/i.test(p) && !isMmproj(p) && !isLaterSplit(p)).sort();
  const rank = (p: string) => {
    const q = quantOf(p);
    const i = q ? QUANT_PREFERENCE.indexOf(q) : -1;
    return i === -1 ? QUANT_PREFERENCE.length : i;
  };
  return [...candidates].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0)).slice(0, Math.max(0, n));
}

/**
 * GGUF header facts of one remote file, read by range requests. A header that cannot be parsed gives
 * undefined; a transient failure (429 past the deadline, 5xx, network) throws, so the run does not keep
 * the model's facts as final and reads the header again next time.
 */
export async function remoteGgufFacts(ctx: IndexModelContext, url: string, path: string): Promise<GgufFacts | undefined> {
  try {
    const { gguf } = await import('@huggingface/gguf');
    const parsed = (await gguf(url, { fetch: ctx.client.asFetch(), computeParametersCount: true })) as unknown as ParsedGguf;
    return ggufFactsOf(path, parsed);
  } catch (e) {
    ctx.log.warn({ event: 'gguf-header-failed', url, err: (e as Error).message?.slice(0, 200) }, 'GGUF header not readable');
    if (isTransient(e)) throw e;
    return undefined;
  }
}

/** Read the header facts of the chosen GGUF files; `incomplete` when a read failed for a transient reason. */
async function ggufFacts(
  ctx: IndexModelContext,
  id: string,
  revision: string,
  paths: string[],
  known: GgufFacts[],
  listed?: UpstreamRow['gguf'],
): Promise<{ gguf: GgufFacts[]; incomplete: boolean }> {
  const byPath = new Map<string, GgufFacts>(known.map((g) => [g.path, g]));
  let incomplete = false;
  for (const p of ggufHeaderFiles(paths, ctx.ggufHeaders)) {
    if (byPath.get(p)?.architecture) continue;
    // The listing's GGUF block, when the host gave one and the file's quantisation is in its name (the block has no
    // file type): no range reads. Else the header is read.
    const q = quantOf(p);
    if (listed?.architecture && q) {
      const facts: GgufFacts = { path: p, architecture: listed.architecture, quantization: q };
      if (typeof listed.context_length === 'number') facts.context_length = listed.context_length;
      if (typeof listed.total === 'number') facts.parameters = listed.total;
      if (typeof listed.chat_template === 'string') facts.chat_template = listed.chat_template;
      byPath.set(p, facts);
      continue;
    }
    try {
      const facts = await remoteGgufFacts(ctx, `${ctx.upstream}/${repoPath(id)}/resolve/${revision}/${encodePath(p)}`, p);
      if (facts) byPath.set(p, facts);
    } catch {
      incomplete = true;
    }
  }
  // Every other GGUF file still gets its quantisation from its name.
  for (const p of paths) {
    if (!/\.gguf$/i.test(p) || byPath.has(p)) continue;
    const q = quantOf(p);
    if (q) byPath.set(p, { path: p, quantization: q });
  }
  return { gguf: [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), incomplete };
}

/**
 * Index one public model at its current revision: the recursive tree (sizes, LFS SHA-256), the small
 * non-LFS files downloaded and hashed, GGUF header facts, and the sources holding it.
 */
export async function indexModel(ctx: IndexModelContext, row: UpstreamRow, revision: string, listed: boolean): Promise<ModelWork> {
  const id = row.id;
  let downloaded = 0;
  try {
    let files: FileRecord[];
    let gguf: GgufFacts[] = [];
    let reused = false;
    let incomplete = false;
    const prev = await ctx.previous?.(id);
    if (prev && prev.revision === revision) {
      files = prev.files;
      reused = true;
      // A header read that failed yesterday is tried again today (the revision's facts are not final without it).
      ({ gguf, incomplete } = await ggufFacts(
        ctx,
        id,
        revision,
        files.map((f) => f.path),
        prev.facts.gguf ?? [],
        row.gguf,
      ));
    } else {
      const tree = (await listTree(ctx, id, revision)).filter((e) => e.type === 'file');
      if (tree.length === 0) throw new Skip('empty', 'the tree has no files');
      // LFS files: the SHA-256 is in the tree. Check every size first, so an over-cap file skips before any download.
      for (const e of tree) {
        if (e.lfs) continue;
        if (typeof e.size === 'number' && e.size > ctx.smallFileCap) {
          throw new Skip(
            'file-over-cap',
            `${e.path} is ${e.size} bytes, not in LFS, over the ${ctx.smallFileCap}-byte cap for downloading and hashing`,
          );
        }
      }
      const lfsFiles: FileRecord[] = [];
      const small: UpstreamTreeEntry[] = [];
      for (const e of tree) {
        if (!e.lfs) {
          small.push(e);
          continue;
        }
        const sha256 = String(e.lfs.oid).toLowerCase();
        if (!SHA256.test(sha256)) throw new Skip('bad-lfs-oid', `${e.path}: lfs.oid ${JSON.stringify(e.lfs.oid)} is not a SHA-256`);
        lfsFiles.push({ path: e.path, size: e.lfs.size ?? e.size ?? 0, sha256 });
      }
      // Small files: a few at a time; the first failure cancels the others.
      const hashed = await boundedAll(small, ctx.smallFileConcurrency ?? 4, async (e, _i, signal): Promise<FileRecord> => {
        const expected = e.size ?? ctx.smallFileCap;
        const got = await hashRemote(ctx, `${ctx.upstream}/${repoPath(id)}/resolve/${revision}/${encodePath(e.path)}`, expected, signal);
        downloaded += got.size;
        if (e.size !== undefined && got.size !== e.size)
          throw new Skip('size-mismatch', `${e.path}: the tree lists ${e.size} bytes, ${got.size} arrived`);
        return { path: e.path, size: got.size, sha256: got.sha256 };
      });
      files = [...lfsFiles, ...hashed];
      files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      ({ gguf, incomplete } = await ggufFacts(
        ctx,
        id,
        revision,
        files.map((f) => f.path),
        [],
        row.gguf,
      ));
    }
    const header = gguf.find((g) => g.architecture) ?? gguf[0];
    const facts: ModelFacts = {};
    if (typeof row.pipeline_tag === 'string') facts.pipeline_tag = row.pipeline_tag;
    if (typeof row.library_name === 'string') facts.library_name = row.library_name;
    if (Array.isArray(row.tags)) facts.tags = row.tags;
    if (header?.parameters !== undefined) facts.parameters = header.parameters;
    if (header?.context_length !== undefined) facts.context = header.context_length;
    if (gguf.length) facts.gguf = gguf;
    if (typeof row.createdAt === 'string') facts.createdAt = row.createdAt;
    if (typeof row.lastModified === 'string') facts.lastModified = row.lastModified;
    const sources: BuildModelInput['sources'] = [{ source: ctx.hfSource, type: 'http' }];
    const verdicts = await revisionVerdicts(ctx, id, revision, files, prev);
    return {
      status: 'ok',
      reused,
      downloaded,
      ...(incomplete ? { incomplete } : {}),
      model: { id, revision, license: licenseOf(row), files, facts, ...verdicts, row: rowFacts(row, listed), sources },
    };
  } catch (e) {
    if (e instanceof Skip) return { status: 'skipped', id, reason: e.reason, detail: e.detail, downloaded };
    const refused = e instanceof UpstreamError ? refusal(e) : undefined;
    if (refused) return { status: 'skipped', id, ...refused, downloaded };
    throw e;
  }
}
