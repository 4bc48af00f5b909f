/** `hub get`: the model's own signature verdict, as the hub's index holds it (svc.signature), shown and required. */
import { createHash } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import type { SignatureVerdict } from '@hub/core-index';

/** The verdict the hub gives for a model (`/api/models/{id}` → `svc.signature`), or undefined when it has none. */
export async function modelSignature(hub: string, id: string, fetchImpl: typeof fetch = fetch): Promise<SignatureVerdict | undefined> {
  const url = `${hub.replace(/\/+$/, '')}/api/models/${id.split('/').map(encodeURIComponent).join('/')}`;
  const res = await fetchImpl(url, { headers: { accept: 'application/json' } });
  if (!res.ok) throw new Error(`${url} answered HTTP ${res.status}`);
  const info = (await res.json()) as { svc?: { signature?: SignatureVerdict } };
  return info.svc?.signature;
}

/** One line for the terminal: who signed, and what it covers. */
export function signatureLine(v: SignatureVerdict | undefined): string {
  if (!v) return 'signature: none (the revision carries no model.sig)';
  const who = v.identity ? ` by ${v.identity}${v.issuer ? ` (${v.issuer})` : ''}` : '';
  const when = v.signed_at ? `, logged ${v.signed_at}` : '';
  const extra = [
    v.unsigned?.length ? `unsigned: ${v.unsigned.join(', ')}` : '',
    v.mismatched?.length ? `mismatched: ${v.mismatched.join(', ')}` : '',
    v.missing?.length ? `missing: ${v.missing.join(', ')}` : '',
    v.reason ?? '',
  ].filter(Boolean);
  return `signature: ${v.status}${who}${when}, ${v.covered} files covered${extra.length ? ` (${extra.join('; ')})` : ''}`;
}

/**
 * Why `--require-signature` refuses these files, or undefined: the signature must be verified, or `incomplete` with
 * every file to fetch among the covered ones. A `needs-bytes` one passes here: hub get checks it from the bytes after
 * the download (checkFromBytes).
 */
export function signatureRefusal(v: SignatureVerdict | undefined, paths: readonly string[]): string | undefined {
  if (!v) return 'carries no model.sig';
  if (v.status === 'verified') return undefined;
  if (v.status === 'incomplete') {
    const outside = paths.filter((p) => v.unsigned?.includes(p));
    return outside.length ? `has a model.sig that does not cover ${outside.join(', ')}` : undefined;
  }
  if (v.status === 'needs-bytes') return undefined;
  return `has a model.sig that failed verification (${v.reason ?? 'see the hub'})`;
}

/** Reads a downloaded file, or `[start, end)` of it; undefined when it is not there. */
async function readLocal(file: string, range?: { start: number; end: number }): Promise<Uint8Array | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    if (!range) return new Uint8Array(await handle.readFile());
    const out = new Uint8Array(Math.max(0, range.end - range.start));
    const { bytesRead } = await handle.read(out, 0, out.byteLength, range.start);
    return out.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * A `needs-bytes` signature checked from the downloaded files: model.sig fetched through the hub (its SHA-256 must be
 * the tree's), then `verifyFromBytes` against the pinned Sigstore root, or the `signing` block of the JSON file
 * HUB_SIGNING_CONFIG names (keys and CAs for `key` and `certificate` bundles, as in the hub's own config).
 */
export async function checkFromBytes(
  at: { hub: string; id: string; commit: string },
  signature: { sha256: string } | undefined,
  held: ReadonlyMap<string, number>,
  localPath: (path: string) => string,
  env: NodeJS.ProcessEnv,
  fetchImpl: typeof fetch = fetch,
): Promise<SignatureVerdict> {
  if (!signature) return { status: 'failed', method: 'unknown', covered: 0, reason: 'the tree lists no model.sig' };
  const url = `${at.hub.replace(/\/+$/, '')}/${at.id}/resolve/${at.commit}/model.sig`;
  // redirects followed one hop at a time (the hub's 302 names the source, as for every file)
  let where = url;
  let res = await fetchImpl(where, { redirect: 'manual' });
  for (let hops = 0; hops < 5 && res.status >= 300 && res.status < 400 && res.headers.get('location'); hops++) {
    where = new URL(res.headers.get('location') as string, where).toString();
    res = await fetchImpl(where, { redirect: 'manual' });
  }
  if (!res.ok) throw new Error(`${url} answered HTTP ${res.status}`);
  const bundle = new Uint8Array(await res.arrayBuffer());
  if (createHash('sha256').update(bundle).digest('hex') !== signature.sha256)
    return { status: 'failed', method: 'unknown', covered: 0, reason: "the model.sig downloaded is not the tree's" };
  const { verifyFromBytes } = await import('@hub/model-signing');
  const { loadTrust } = await import('@hub/model-signing/node');
  const file = env.HUB_SIGNING_CONFIG;
  const config = file ? (JSON.parse(await readFile(file, 'utf8')) as { signing?: Parameters<typeof loadTrust>[0] }).signing : undefined;
  return verifyFromBytes(bundle, loadTrust(config ?? {}), held, (p, range) => readLocal(localPath(p), range));
}
