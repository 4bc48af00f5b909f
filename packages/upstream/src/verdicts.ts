import {
  createSha256,
  encodePath,
  type FileRecord,
  iterateBody,
  type Logger,
  type ModelObject,
  SCAN_LEVELS,
  type ScanVerdict,
  type SignatureVerdict,
} from '@hub/core-index';
import type { UpstreamClient } from './client.js';
import { errorOf, isTransient } from './errors.js';

/**
 * Who made a revision's bytes, and what the host's scanners said of them (design 11.2): the revision's own
 * `model.sig` checked against the index's SHA-256 by the verifier the host injects (`@hub/model-signing`, Node only),
 * and the host's scan verdicts (`securityRepoStatus`, and `securityFileStatus` of each file with an issue).
 * Both are asked for a changed revision only; an unchanged one keeps yesterday's (a scan not done yet is asked again).
 */

/** The bundle OMS signers write at a revision's root. */
export const SIGNATURE_PATH = 'model.sig';
/** A model.sig larger than this is not a signature bundle (real ones are a few KiB). */
const SIGNATURE_CAP = 1024 * 1024;

export interface VerdictOptions {
  /** Checks a bundle against the index's files; absent: signatures are not checked (no `signature` in the index). */
  verifySignature?: (bundle: Uint8Array, files: readonly FileRecord[], bundlePath: string) => SignatureVerdict;
  /** Ask the host for its scan verdicts (default true). */
  scans?: boolean;
}

/** What the verdicts need of the run's per-model context (model.ts's `IndexModelContext` is one). */
export interface VerdictContext {
  client: UpstreamClient;
  upstream: string;
  log: Logger;
  verdicts?: VerdictOptions;
}

const repoPath = (id: string) =>
  id
    .split('/')
    .map((s) => encodeURIComponent(s))
    .join('/');

async function download(ctx: VerdictContext, url: string): Promise<Uint8Array> {
  const res = await ctx.client.request(url);
  if (!res.ok) {
    void res.body?.cancel().catch(() => {});
    throw errorOf(url, res);
  }
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of iterateBody(res.body)) {
    size += chunk.byteLength;
    if (size > SIGNATURE_CAP) {
      void res.body?.cancel().catch(() => {});
      throw new Error(`${url} is larger than ${SIGNATURE_CAP} bytes`);
    }
    parts.push(chunk);
  }
  ctx.client.stats.bytes += size;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

async function signatureOf(
  ctx: VerdictContext,
  id: string,
  revision: string,
  files: readonly FileRecord[],
): Promise<SignatureVerdict | undefined> {
  const verify = ctx.verdicts?.verifySignature;
  const record = files.find((f) => f.path === SIGNATURE_PATH);
  if (!verify || !record) return undefined;
  const bytes = await download(ctx, `${ctx.upstream}/${repoPath(id)}/resolve/${revision}/${encodePath(SIGNATURE_PATH)}`);
  const h = createSha256();
  h.update(bytes);
  // The bundle checked is the one the index names: bytes that are not the indexed model.sig are not judged.
  if (h.hex() !== record.sha256)
    return {
      status: 'failed',
      method: 'unknown',
      bundle: SIGNATURE_PATH,
      covered: 0,
      reason: 'the model.sig downloaded is not the one the index lists',
    };
  return verify(bytes, files, SIGNATURE_PATH);
}

const LEVELS = new Set<string>(SCAN_LEVELS);

/** The host's `securityRepoStatus`, validated; undefined when the answer has none or it is malformed. */
export function readRepoStatus(value: unknown): Omit<ScanVerdict, 'files'> | undefined {
  const s = (value as { securityRepoStatus?: unknown } | undefined)?.securityRepoStatus as
    | { scansDone?: unknown; filesWithIssues?: unknown }
    | undefined;
  if (!s || typeof s.scansDone !== 'boolean' || !Array.isArray(s.filesWithIssues)) return undefined;
  const filesWithIssues = s.filesWithIssues.flatMap((f: { path?: unknown; level?: unknown }) =>
    typeof f?.path === 'string' && typeof f.level === 'string' && LEVELS.has(f.level)
      ? [{ path: f.path, level: f.level as ScanVerdict['filesWithIssues'][number]['level'] }]
      : [],
  );
  return { scansDone: s.scansDone, filesWithIssues };
}

async function scanOf(ctx: VerdictContext, id: string, revision: string): Promise<ScanVerdict | undefined> {
  const repo = `${ctx.upstream}/api/models/${repoPath(id)}`;
  const { value } = await ctx.client.json<unknown>(`${repo}/revision/${revision}?securityStatus=true`);
  const status = readRepoStatus(value);
  if (!status || status.filesWithIssues.length === 0) return status;
  // The files with an issue: their per-file detail, as `paths-info` with `expand=true` answers it.
  const url = `${repo}/paths-info/${revision}`;
  const res = await ctx.client.request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ paths: status.filesWithIssues.map((f) => f.path), expand: true }),
  });
  if (!res.ok) {
    void res.body?.cancel().catch(() => {});
    throw errorOf(url, res);
  }
  const entries = (await res.json().catch(() => [])) as Array<{ path?: unknown; securityFileStatus?: unknown }>;
  const files: NonNullable<ScanVerdict['files']> = {};
  for (const e of Array.isArray(entries) ? entries : []) {
    const s = e?.securityFileStatus as { status?: unknown; avScan?: unknown; pickleImportScan?: unknown } | undefined;
    if (typeof e?.path !== 'string' || typeof s?.status !== 'string') continue;
    files[e.path] = {
      status: s.status,
      ...(s.avScan !== undefined ? { avScan: s.avScan } : {}),
      ...(s.pickleImportScan !== undefined ? { pickleImportScan: s.pickleImportScan } : {}),
    };
  }
  return { ...status, ...(Object.keys(files).length ? { files } : {}) };
}

/**
 * The verdicts of one revision. A transient failure of the signature download throws (the model keeps yesterday's
 * object, as for any file); the scan is the host's opinion, not the index's facts: when it cannot be read, the
 * model keeps yesterday's scan (or none) and the run goes on.
 */
export async function revisionVerdicts(
  ctx: VerdictContext,
  id: string,
  revision: string,
  files: readonly FileRecord[],
  prev: ModelObject | undefined,
): Promise<{ signature?: SignatureVerdict; scan?: ScanVerdict }> {
  const same = prev?.revision === revision;
  const signature = same && prev?.signature ? prev.signature : await signatureOf(ctx, id, revision, files);
  let scan = same ? prev?.scan : undefined;
  if (ctx.verdicts?.scans !== false && !scan?.scansDone) {
    try {
      scan = (await scanOf(ctx, id, revision)) ?? scan;
    } catch (e) {
      ctx.log.warn(
        { event: 'scan-status-failed', model: id, transient: isTransient(e), err: (e as Error).message?.slice(0, 200) },
        'scan status not readable',
      );
    }
  }
  return { ...(signature ? { signature } : {}), ...(scan ? { scan } : {}) };
}
