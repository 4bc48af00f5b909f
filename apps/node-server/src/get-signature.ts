/** `hub get`: the model's own signature verdict, as the hub's index holds it (svc.signature), shown and required. */
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
 * every file to fetch among the covered ones. `needs-bytes` is refused too: hub get does not check shards or other
 * hashes than SHA-256 from the bytes yet.
 */
export function signatureRefusal(v: SignatureVerdict | undefined, paths: readonly string[]): string | undefined {
  if (!v) return 'carries no model.sig';
  if (v.status === 'verified') return undefined;
  if (v.status === 'incomplete') {
    const outside = paths.filter((p) => v.unsigned?.includes(p));
    return outside.length ? `has a model.sig that does not cover ${outside.join(', ')}` : undefined;
  }
  if (v.status === 'needs-bytes')
    return `has a model.sig only the bytes can check (${v.reason ?? 'shards or another hash'}); hub get does not check those yet`;
  return `has a model.sig that failed verification (${v.reason ?? 'see the hub'})`;
}
