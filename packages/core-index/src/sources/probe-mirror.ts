import type { SourceConfig } from '../index/source-kinds.js';
import {
  holdingOf,
  type MirrorHolding,
  mirrorFilePath,
  mirrorManifestUrl,
  mirrorTemplate,
  parseMirrorManifest,
} from './mirror-manifest.js';
import { errorText, type ProbeOptions, type ProbeOutcome, type ProbeReason, probeSource } from './prober.js';

/**
 * Probe a mirror source (design 10.3): read its manifest (what it holds from now on; a mirror whose manifest cannot be
 * read keeps what it last said and fails), then fetch one held file and hash it. The file is the `turn`-th smallest
 * of those no larger than `maxBytes`, so successive rounds walk through the mirror. Never throws.
 */
export async function probeMirror(
  source: SourceConfig,
  options: ProbeOptions,
  turn: number,
): Promise<{ outcome: ProbeOutcome; holding?: MirrorHolding }> {
  const at = options.now();
  const manifestUrl = mirrorManifestUrl(source) ?? '';
  const fail = (reason: ProbeReason, detail: string, status?: number): { outcome: ProbeOutcome } => ({
    outcome: {
      name: source.name,
      ok: false,
      reason,
      at,
      ms: Math.max(0, options.now() - at),
      url: manifestUrl,
      detail,
      ...(status ? { status } : {}),
    },
  });
  let holding: MirrorHolding;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutSeconds * 1000);
  try {
    const r = await options.fetch(manifestUrl, {
      signal: controller.signal,
      headers: { accept: 'application/json', 'cache-control': 'no-cache' },
    });
    if (!r.ok) {
      r.body?.cancel().catch(() => {});
      return fail('status', `manifest: HTTP ${r.status}`, r.status);
    }
    const text = await r.text();
    if (text.length > options.maxBytes) return fail('mismatch', `manifest longer than ${options.maxBytes} bytes`);
    holding = holdingOf(parseMirrorManifest(text), at);
  } catch (e) {
    if (controller.signal.aborted) return fail('timeout', `manifest: no complete answer within ${options.timeoutSeconds} s`);
    return fail(
      e instanceof Error && e.message.startsWith('the mirror manifest') ? 'mismatch' : 'unreachable',
      `manifest: ${errorText(e)}`,
    );
  } finally {
    clearTimeout(timer);
  }
  const small = holding.sha256
    .map((sha256, i) => ({ sha256, size: holding.sizes[i] ?? 0 }))
    .filter((f) => f.size <= options.maxBytes)
    .sort((a, b) => a.size - b.size || (a.sha256 < b.sha256 ? -1 : 1));
  if (small.length === 0) {
    const detail = holding.files === 0 ? 'the manifest lists no file' : `no held file is under ${options.maxBytes} bytes`;
    return {
      outcome: { name: source.name, ok: true, reason: 'verified', at, ms: Math.max(0, options.now() - at), url: manifestUrl, detail },
      holding,
    };
  }
  const pick = small[((turn % small.length) + small.length) % small.length] as { sha256: string; size: number };
  const template = mirrorTemplate(source) ?? '';
  const url = template.replace('{sha256}', pick.sha256);
  const outcome = await probeSource({ ...source, kind: 'http', probe: { path: url, sha256: pick.sha256, size: pick.size } }, options);
  return {
    outcome: { ...outcome, ...(outcome.ok ? {} : { detail: `${mirrorFilePath(pick.sha256)}: ${outcome.detail ?? outcome.reason}` }) },
    holding,
  };
}
