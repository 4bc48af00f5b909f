import {
  type Address,
  ARCHIVE_REGISTRY,
  type CoreDeps,
  canonicalBytes,
  type HubResponse,
  json,
  parseRange,
  type RouteContext,
  readArchive,
  sha256Hex,
} from '@hub/core-index';
import { blobUnknown, digestInvalid, manifestUnknown, rangeInvalid } from './errors.js';
import { OCI_MANIFEST, TITLE } from './media-types.js';
import { paginate } from './pagination.js';

/**
 * The daily index as OCI artifacts (spec: "The daily archive index is also available as OCI artifacts
 * in a repository named by Archive.registry"). One tag per archived day (`YYYY-MM-DD`) and `latest`;
 * each manifest is an OCI 1.1 artifact whose single layer is that day's catalog object (the exact
 * stored bytes, so the layer's sha256 digest and the object's BLAKE3 address name the same bytes),
 * with the empty config.
 */
export const ARCHIVE_ARTIFACT_TYPE = 'application/vnd.svc.model-hub.catalog.v1+json';
export const ARCHIVE_LAYER = 'application/vnd.svc.model-hub.catalog.v1+json';
export const EMPTY_CONFIG = 'application/vnd.oci.empty.v1+json';
/** The day's signed checkpoint of the transparency log (C2SP tlog-checkpoint as a signed note; design 10.4). */
export const CHECKPOINT_LAYER = 'application/vnd.svc.model-hub.checkpoint.v1';
const EMPTY_BYTES = new TextEncoder().encode('{}');

interface ArchiveManifest {
  bytes: Uint8Array;
  digest: string;
  /** the catalog layer */
  layer: { digest: string; address: Address; size: number };
  /** the checkpoint layer, when the day was signed */
  checkpoint?: { digest: string; address: Address };
}

type Day = Awaited<ReturnType<typeof readArchive>>['days'][number];

/**
 * The archive repository of one index. Only the archive document is read up front (so `_catalog` and
 * `tags/list` cost one ref read); a day's catalog is hashed the first time its manifest or blob is asked for.
 */
export interface ArchiveRepository {
  /** lowercase repository name (`hub/index`) */
  name: string;
  /** the dates, then `latest` */
  tags: string[];
  manifest(tag: string): Promise<ArchiveManifest | undefined>;
  /** a manifest by its digest */
  byDigest(digest: string): Promise<ArchiveManifest | undefined>;
  /** a blob: the empty config, or a day's catalog */
  blob(digest: string): Promise<{ address?: Address; bytes?: Uint8Array } | undefined>;
}

const EMPTY_DIGEST = `sha256:${sha256Hex(EMPTY_BYTES)}`;

async function makeManifest(deps: CoreDeps, day: Day): Promise<ArchiveManifest | undefined> {
  const stored = await deps.objects.get(day.index as Address);
  if (!stored) return undefined;
  const digest = `sha256:${sha256Hex(stored.bytes)}`;
  const annotations: Record<string, string> = { 'svc.model-hub.date': day.date, 'svc.model-hub.catalog': day.index };
  if (day.archived) annotations['org.opencontainers.image.created'] = day.archived;
  if (day.source) annotations['org.opencontainers.image.revision'] = day.source;
  if (day.prev) annotations['svc.model-hub.prev'] = day.prev;
  if (day.leaf !== undefined) annotations['svc.model-hub.leaf'] = String(day.leaf);
  // The checkpoint signed right after this day joined the log, so an archive pulled by an OCI client can be checked.
  const cp = day.checkpoint ? await deps.objects.get(day.checkpoint as Address) : undefined;
  const checkpoint = cp && day.checkpoint ? { digest: `sha256:${sha256Hex(cp.bytes)}`, address: day.checkpoint as Address } : undefined;
  const manifest = {
    schemaVersion: 2,
    mediaType: OCI_MANIFEST,
    artifactType: ARCHIVE_ARTIFACT_TYPE,
    config: { mediaType: EMPTY_CONFIG, digest: EMPTY_DIGEST, size: EMPTY_BYTES.byteLength, data: 'e30=' },
    layers: [
      {
        mediaType: ARCHIVE_LAYER,
        digest,
        size: stored.bytes.byteLength,
        annotations: { [TITLE]: `catalog-${day.date}.json`, 'svc.model-hub.address': day.index },
      },
      ...(cp && checkpoint
        ? [
            {
              mediaType: CHECKPOINT_LAYER,
              digest: checkpoint.digest,
              size: cp.bytes.byteLength,
              annotations: { [TITLE]: `checkpoint-${day.date}.txt`, 'svc.model-hub.address': checkpoint.address },
            },
          ]
        : []),
    ],
    annotations,
  };
  const bytes = canonicalBytes(manifest);
  return {
    bytes,
    digest: `sha256:${sha256Hex(bytes)}`,
    layer: { digest, address: day.index as Address, size: stored.bytes.byteLength },
    ...(checkpoint ? { checkpoint } : {}),
  };
}

async function build(deps: CoreDeps): Promise<ArchiveRepository | undefined> {
  const archive = await readArchive(deps.objects);
  if (archive.days.length === 0) return undefined;
  const name = (archive.registry ?? ARCHIVE_REGISTRY).toLowerCase();
  const byDate = new Map<string, Day>();
  for (const day of archive.days) if (!byDate.has(day.date)) byDate.set(day.date, day);
  const newest = archive.days[0] as Day;
  const made = new Map<string, Promise<ArchiveManifest | undefined>>();
  const manifestOf = (day: Day) => {
    let m = made.get(day.date);
    if (!m) {
      m = makeManifest(deps, day).catch(() => undefined);
      made.set(day.date, m);
    }
    return m;
  };
  /** Every day's manifest, newest first, until `found` says stop (digest look-ups). */
  const find = async (found: (m: ArchiveManifest) => boolean) => {
    for (const day of byDate.values()) {
      const m = await manifestOf(day);
      if (m && found(m)) return m;
    }
    return undefined;
  };
  return {
    name,
    tags: [...[...byDate.keys()].sort(), 'latest'],
    manifest: async (tag) => {
      const day = tag === 'latest' ? newest : byDate.get(tag);
      return day ? manifestOf(day) : undefined;
    },
    byDigest: (digest) => find((m) => m.digest === digest),
    blob: async (digest) => {
      if (digest === EMPTY_DIGEST) return { bytes: EMPTY_BYTES };
      const m = await find((x) => x.layer.digest === digest || x.checkpoint?.digest === digest);
      if (!m) return undefined;
      return { address: m.layer.digest === digest ? m.layer.address : (m.checkpoint?.address as Address) };
    },
  };
}

/** The archive repository of today's index (built once per index), or undefined when nothing is archived. */
export function archiveRepository(deps: CoreDeps): Promise<ArchiveRepository | undefined> {
  return deps.index().memo('oci:archive', () => build(deps).catch(() => undefined));
}

const DIGEST = /^sha256:[0-9a-fA-F]{64}$/;

/**
 * Answer a tags, manifest or blob request when it names the archive repository; undefined otherwise
 * (the request is then a model's). The archive repository wins over a model of the same name.
 */
export async function archiveAnswer(ctx: RouteContext<CoreDeps>, op: 'tags' | 'manifest' | 'blob'): Promise<HubResponse | undefined> {
  const asked = `${ctx.params.owner ?? ''}/${ctx.params.name ?? ''}`.toLowerCase();
  if (asked !== ARCHIVE_REGISTRY && !asked.startsWith('hub/')) return undefined;
  const repo = await archiveRepository(ctx.deps);
  if (!repo || repo.name !== asked) return undefined;
  if (op === 'tags') {
    // One tag a day: the list grows without end, so it pages as every tag list does (n, last, Link).
    const p = paginate(ctx, repo.tags, ctx.path);
    if (!('page' in p)) return p;
    return json(200, { name: repo.name, tags: p.page }, p.headers);
  }
  if (op === 'manifest') {
    const ref = ctx.params.reference ?? '';
    if (ref.startsWith('sha256:') && !DIGEST.test(ref)) return digestInvalid(ref);
    const m = ref.startsWith('sha256:') ? await repo.byDigest(ref.toLowerCase()) : await repo.manifest(ref);
    if (!m)
      return manifestUnknown(repo.name, ref, repo.tags, 'The archive repository has one tag per archived day (YYYY-MM-DD) and latest.');
    return {
      status: 200,
      headers: { 'content-type': OCI_MANIFEST, 'docker-content-digest': m.digest, etag: `"${m.digest}"` },
      body: m.bytes,
    };
  }
  const raw = ctx.params.digest ?? '';
  if (!DIGEST.test(raw)) return digestInvalid(raw);
  const digest = raw.toLowerCase();
  const blob = await repo.blob(digest);
  if (!blob) return blobUnknown(repo.name, digest);
  const bytes = blob.bytes ?? (blob.address ? (await ctx.deps.objects.get(blob.address))?.bytes : undefined);
  if (!bytes) return blobUnknown(repo.name, digest);
  const headers: Record<string, string> = {
    'content-type': 'application/octet-stream',
    'docker-content-digest': digest,
    etag: `"${digest}"`,
    'accept-ranges': 'bytes',
  };
  const range = parseRange(ctx.req.headers.get('range'), bytes.byteLength);
  if (range === 'unsatisfiable') return rangeInvalid(bytes.byteLength);
  if (range) {
    headers['content-range'] = `bytes ${range.start}-${range.end}/${bytes.byteLength}`;
    return { status: 206, headers, body: bytes.subarray(range.start, range.end + 1) };
  }
  return { status: 200, headers, body: bytes };
}
