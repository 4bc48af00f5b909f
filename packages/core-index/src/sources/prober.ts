import type { SourceState } from '../index/schemas.js';
import { createSha256 } from '../index/sha256.js';
import { probeBase, type SourceConfig, sourceKindProblem } from '../index/source-kinds.js';
import { type MirrorHolding, mirrorManifestUrl, mirrorTemplate } from './mirror-manifest.js';

/**
 * Source health probes (design section 4): fetch each source's probe file, hash it with SHA-256 while it
 * streams, and record `ok`, `checked` and a one-word `reason`. These are the pure parts (one probe, folding an
 * outcome into the state, the schedule); `SourceProber` (source-prober.ts) runs them in rounds over a host's storage.
 *
 * Schedule: a source whose last probe passed is probed again after `intervalSeconds`; a failing one is
 * re-checked after `retrySeconds` (never later than `intervalSeconds`), doubling with every further failure up to `retryMaxSeconds`, and is
 * offered again as soon as one probe passes.
 */

/** The one-word reasons of `HubHealth.sources[*].reason`. */
export type ProbeReason = 'verified' | 'mismatch' | 'status' | 'timeout' | 'unreachable';

export interface ProbeSettings {
  /** Seconds between probes of a source whose last probe passed. */
  intervalSeconds: number;
  /** Seconds before the first re-check of a source that failed; doubles with each further failure. */
  retrySeconds: number;
  /** The longest wait between re-checks of a failing source. */
  retryMaxSeconds: number;
  /** One probe (connect, headers and the whole body) must finish within this many seconds. */
  timeoutSeconds: number;
  /** Sources probed at the same time. */
  concurrency: number;
  /** A probe body longer than this is not read further and counts as `mismatch`. */
  maxBytes: number;
}

export const DEFAULT_PROBE_SETTINGS: Readonly<ProbeSettings> = Object.freeze({
  intervalSeconds: 60,
  retrySeconds: 40,
  retryMaxSeconds: 3600,
  timeoutSeconds: 10,
  concurrency: 4,
  maxBytes: 16 * 1024 * 1024,
});

/** Settings with defaults filled in; throws a readable error for a value that cannot work. */
export function probeSettings(partial: Partial<ProbeSettings> = {}): ProbeSettings {
  const s: ProbeSettings = { ...DEFAULT_PROBE_SETTINGS };
  for (const [k, v] of Object.entries(partial) as Array<[keyof ProbeSettings, number | undefined]>) {
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
      throw new Error(`probe setting ${k} must be a positive number, got ${JSON.stringify(v)}`);
    s[k] = v;
  }
  s.concurrency = Math.max(1, Math.floor(s.concurrency));
  if (s.retryMaxSeconds < s.retrySeconds) s.retryMaxSeconds = s.retrySeconds;
  return s;
}

/** What one source's probe found. */
export interface ProbeOutcome {
  /** health key */
  name: string;
  ok: boolean;
  reason: ProbeReason;
  /** when the probe started (ms since epoch, injected clock) */
  at: number;
  /** how long it took (ms, injected clock) */
  ms: number;
  /** the URL fetched */
  url: string;
  /** HTTP status, when headers arrived */
  status?: number;
  /** a short explanation for operators (logs and `hub probe`), never shown on the health route */
  detail?: string;
}

/** The persisted record of one probed source: its `SourceState` plus the schedule. */
export interface SourceProbeRecord extends SourceState {
  /** consecutive failed probes (0 after a pass) */
  failures: number;
  /** when the last probe ran (ISO date-time) */
  probed: string;
  /** when the source is due again (ISO date-time) */
  next: string;
  /** SHA-256 of the probe file the record is about; a changed probe file makes the record stale */
  probe: string;
  detail?: string;
}

/** Everything a host keeps between rounds (and across restarts). */
export interface ProbeState {
  v: 1;
  sources: Record<string, SourceProbeRecord>;
  /** What each mirror source's manifest listed when last read (design 10.3). */
  mirrors?: Record<string, MirrorHolding>;
}

export const emptyProbeState = (): ProbeState => ({ v: 1, sources: {} });

const HEX64 = /^[0-9a-f]{64}$/;

/** A problem with a source's `probe` configuration, or undefined when it is usable (or absent). */
export function probeConfigProblem(source: SourceConfig): string | undefined {
  const kind = sourceKindProblem(source);
  if (kind) return kind;
  if (source.kind === 'mirror') {
    const template = mirrorTemplate(source);
    if (!template || !/^https?:\/\//i.test(template))
      return `source ${source.name}: a mirror needs an http(s) url (the mirror folder's base URL)`;
    if (source.url?.includes('{') && !source.url.includes('{sha256}'))
      return `source ${source.name}: a mirror's url template must use {sha256} (the mirror holds files by SHA-256)`;
    if (!mirrorManifestUrl(source)) return `source ${source.name}: a mirror whose url is a template needs "manifest" (the manifest's URL)`;
    return undefined;
  }
  const p = source.probe;
  if (p === undefined) return undefined;
  if (!p || typeof p !== 'object') return `source ${source.name}: probe must be {path, sha256}`;
  if (typeof p.path !== 'string' || !p.path) return `source ${source.name}: probe.path must be a non-empty string`;
  if (typeof p.sha256 !== 'string' || !HEX64.test(p.sha256.toLowerCase()))
    return `source ${source.name}: probe.sha256 must be 64 hex characters`;
  if (p.size !== undefined && (!Number.isInteger(p.size) || p.size < 0))
    return `source ${source.name}: probe.size must be a whole number of bytes`;
  if (!probeUrl(source))
    return `source ${source.name}: probe.path ${JSON.stringify(p.path)} is not an absolute URL and the source has no http(s) url to resolve it against`;
  return undefined;
}

/**
 * The URL of a source's probe file. `probe.path` may be an absolute `http(s)://` URL; otherwise it is
 * resolved against the source's URL with everything from the first `{` on cut off (so with the template
 * `https://huggingface.co/{id}/resolve/{revision}/{path}`, the path `org/model/resolve/main/config.json`
 * names `https://huggingface.co/org/model/resolve/main/config.json`; with an IPFS gateway
 * `https://ipfs.io`, the path `ipfs/<cid>/file` names `https://ipfs.io/ipfs/<cid>/file`).
 */
export function probeUrl(source: SourceConfig): string | undefined {
  const p = source.probe;
  if (!p || typeof p.path !== 'string') return undefined;
  if (/^https?:\/\//i.test(p.path)) return p.path;
  if (!source.url || sourceKindProblem(source)) return undefined;
  try {
    const u = new URL(p.path, probeBase(source.kind, source.url));
    return /^https?:$/.test(u.protocol) ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/** Seconds to wait before the next probe of a source after `failures` consecutive failures (0: healthy). */
export function nextProbeDelaySeconds(failures: number, settings: ProbeSettings): number {
  if (failures <= 0) return settings.intervalSeconds;
  // The first re-check comes no later than one probe interval (issue 19): a source that healed is offered
  // again within the operator's own interval, then the wait grows. 2 ** (failures - 1) overflows to
  // Infinity for absurd counts; Math.min keeps the cap.
  const first = Math.min(settings.retrySeconds, settings.intervalSeconds);
  return Math.min(Math.max(settings.retryMaxSeconds, first), first * 2 ** Math.min(failures - 1, 60));
}

class Timeout extends Error {}

export interface ProbeOptions {
  fetch: typeof fetch;
  now: () => number;
  timeoutSeconds: number;
  maxBytes: number;
}

/** Probe one source (which must have a usable probe file). Never throws. */
export async function probeSource(source: SourceConfig, options: ProbeOptions): Promise<ProbeOutcome> {
  const at = options.now();
  const url = probeUrl(source) ?? '';
  const expected = source.probe?.sha256.toLowerCase() ?? '';
  const done = (ok: boolean, reason: ProbeReason, extra: { status?: number; detail?: string } = {}): ProbeOutcome => ({
    name: source.name,
    ok,
    reason,
    at,
    ms: Math.max(0, options.now() - at),
    url,
    ...extra,
  });
  if (!url) return done(false, 'unreachable', { detail: 'no probe URL' });

  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  // The deadline rejects on its own, so a fetch or a body that ignores the abort signal still times out.
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Timeout());
    }, options.timeoutSeconds * 1000);
  });
  deadline.catch(() => {});
  let status: number | undefined;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    const res = await Promise.race([
      options.fetch(url, { signal: controller.signal, redirect: 'follow', headers: { accept: '*/*', 'cache-control': 'no-cache' } }),
      deadline,
    ]);
    status = res.status;
    if (res.status < 200 || res.status > 299) {
      res.body?.cancel().catch(() => {});
      return done(false, 'status', { status, detail: `HTTP ${res.status}` });
    }
    const hash = createSha256();
    let bytes = 0;
    if (res.body) {
      reader = res.body.getReader();
      for (;;) {
        const chunk = await Promise.race([reader.read(), deadline]);
        if (chunk.done) break;
        bytes += chunk.value.byteLength;
        if (bytes > options.maxBytes) {
          return done(false, 'mismatch', { status, detail: `body longer than ${options.maxBytes} bytes` });
        }
        hash.update(chunk.value);
      }
      reader = undefined;
    }
    const size = source.probe?.size;
    if (size !== undefined && bytes !== size) return done(false, 'mismatch', { status, detail: `${bytes} bytes, expected ${size}` });
    const got = hash.hex();
    if (got !== expected) return done(false, 'mismatch', { status, detail: `sha256 ${got}, expected ${expected}` });
    return done(true, 'verified', { status });
  } catch (e) {
    if (e instanceof Timeout || controller.signal.aborted) {
      return done(false, 'timeout', { ...(status ? { status } : {}), detail: `no complete answer within ${options.timeoutSeconds} s` });
    }
    return done(false, 'unreachable', { ...(status ? { status } : {}), detail: errorText(e) });
  } finally {
    clearTimeout(timer);
    controller.abort();
    reader?.cancel().catch(() => {});
  }
}

export function errorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as { cause?: unknown }).cause;
  const code = cause && typeof cause === 'object' && 'code' in cause ? String((cause as { code: unknown }).code) : undefined;
  const text = cause instanceof Error ? cause.message : e.message;
  return (code && !text.includes(code) ? `${code}: ${text}` : text).slice(0, 200);
}

export interface ProbeRound {
  /** Outcomes of the sources probed this round, in configuration order. */
  results: ProbeOutcome[];
  /** Sources with a probe file that were not due. */
  skipped: string[];
  /** Sources without a (usable) probe file: offered, never checked. */
  unprobed: string[];
  /** The state to keep for the next round. */
  state: ProbeState;
  /** When the next source is due (ms since epoch), or undefined when no source has a probe file. */
  nextDue: number | undefined;
}

/** Sources whose probe is usable, in configuration order. */
export function probedSources(sources: SourceConfig[]): SourceConfig[] {
  return sources.filter((s) => (s.probe || s.kind === 'mirror') && s.redirect !== false && !probeConfigProblem(s));
}

/** What a probe record is about: the probe file's SHA-256, or `mirror` for a mirror (its probe file changes each round). */
function probeKey(source: SourceConfig): string {
  return source.kind === 'mirror' ? 'mirror' : (source.probe?.sha256.toLowerCase() ?? '');
}

/**
 * Keep only records that still describe a configured source's current probe file (a source removed from
 * the configuration, or given another probe file, starts afresh).
 */
export function currentProbeState(state: ProbeState | undefined, sources: SourceConfig[]): ProbeState {
  const out = emptyProbeState();
  if (!state || typeof state !== 'object' || !state.sources || typeof state.sources !== 'object') return out;
  for (const s of probedSources(sources)) {
    const r = state.sources[s.name];
    if (r && typeof r === 'object' && r.probe === probeKey(s) && typeof r.ok === 'boolean' && !Number.isNaN(Date.parse(r.next))) {
      out.sources[s.name] = r;
    }
    const held = state.mirrors?.[s.name];
    if (s.kind === 'mirror' && held && Array.isArray(held.sha256)) out.mirrors = { ...out.mirrors, [s.name]: held };
  }
  return out;
}

/** When the earliest probed source is due (ms since epoch). */
export function nextProbeDue(state: ProbeState, sources: SourceConfig[], now: number): number | undefined {
  let next: number | undefined;
  for (const s of probedSources(sources)) {
    const r = state.sources[s.name];
    const due = r ? Date.parse(r.next) : now;
    if (next === undefined || due < next) next = due;
  }
  return next;
}

/**
 * Seconds until a failing source is next re-checked (the earliest one), at least 1: the `Retry-After` of
 * a 503 when no source holding a file is live. Without a failing probed source: the probe interval.
 */
export function probeRetryAfterSeconds(state: ProbeState, now: number, settings: Partial<ProbeSettings> = {}): number {
  let next: number | undefined;
  for (const r of Object.values(state.sources)) {
    if (r.ok) continue;
    const due = Date.parse(r.next);
    if (!Number.isNaN(due) && (next === undefined || due < next)) next = due;
  }
  if (next === undefined) return Math.max(1, Math.ceil(probeSettings(settings).intervalSeconds));
  return Math.max(1, Math.ceil((next - now) / 1000));
}

/**
 * Demand pulls a failing source's re-check forward (issue 19): when a file is asked for and no live source holds it,
 * each failing source among its holders is due again one probe interval after its last probe (or now, when that
 * has passed) instead of on the growing schedule. Returns the names whose due time moved. A source that passes is
 * back on the normal interval; one that keeps failing while nobody asks goes back to the growing schedule.
 */
export function pullForward(state: ProbeState, names: readonly string[], now: number, settings: Partial<ProbeSettings> = {}): string[] {
  const interval = probeSettings(settings).intervalSeconds * 1000;
  const moved: string[] = [];
  for (const name of names) {
    const r = state.sources[name];
    if (!r || r.ok) continue;
    const probed = Date.parse(r.probed);
    const next = Date.parse(r.next);
    if (Number.isNaN(probed) || Number.isNaN(next)) continue;
    const wanted = Math.max(probed + interval, now);
    if (wanted < next) {
      state.sources[name] = { ...r, next: new Date(wanted).toISOString() };
      moved.push(name);
    }
  }
  return moved;
}

/** Fold one outcome into the state. */
export function recordOutcome(state: ProbeState, source: SourceConfig, outcome: ProbeOutcome, settings: ProbeSettings): SourceProbeRecord {
  const prev = state.sources[source.name];
  const failures = outcome.ok ? 0 : (prev?.failures ?? 0) + 1;
  const finished = outcome.at + outcome.ms;
  const record: SourceProbeRecord = {
    ok: outcome.ok,
    // `checked` is when the source was last reached and verified; a failure keeps the last success.
    checked: outcome.ok ? new Date(outcome.at).toISOString() : (prev?.checked ?? null),
    reason: outcome.reason,
    failures,
    probed: new Date(outcome.at).toISOString(),
    next: new Date(finished + nextProbeDelaySeconds(failures, settings) * 1000).toISOString(),
    probe: probeKey(source),
    ...(outcome.detail ? { detail: outcome.detail } : {}),
  };
  state.sources[source.name] = record;
  return record;
}
