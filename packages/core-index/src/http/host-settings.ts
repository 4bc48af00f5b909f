/**
 * The host settings, read one way by both hosts (issue 38): raw values as a host has them (node's config file, the
 * edge's vars, which may be text) become the one `HostPolicy`, or a `HostSettingsError` whose message names the
 * setting and says what it must be. Pure: node-server refuses to start with that line (exit 2), the edge answers
 * every request 503 with it.
 */
import type { HostPolicy } from './host-policy.js';

/** A host setting that cannot be used as given. */
export class HostSettingsError extends Error {}

/** The host settings as a host has them: config values, or the edge's vars (text, a list, a boolean). */
export interface RawHostSettings {
  /** The address the host listens on (the edge: `0.0.0.0` deployed, a loopback address under `wrangler dev`). */
  listenHost: string;
  /** `baseUrl` / `BASE_URL`: the public origin. Empty or absent: none. */
  baseUrl?: unknown;
  /** `allowedHosts` / `ALLOWED_HOSTS`: a list of names, or text holding a JSON list or names split by commas. */
  allowedHosts?: unknown;
  /** `trustProxy` / `TRUST_PROXY`: `true`, `false`, or the text `true`, `false`, `1`, `0`. */
  trustProxy?: unknown;
}

/**
 * `baseUrl` as the policy keeps it (trailing slashes dropped): an absolute http(s) URL without query, fragment or
 * credentials; it is the origin of every absolute URL the hub writes, so a wrong one must stop the host, not leak.
 */
function baseUrlOf(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  let u: URL | undefined;
  try {
    u = typeof v === 'string' ? new URL(v) : undefined;
  } catch {
    u = undefined;
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.search || u.hash || u.username || u.password)
    throw new HostSettingsError(
      'baseUrl must be an absolute http(s) URL without query, fragment or credentials (https://models.example.org)',
    );
  return (v as string).replace(/\/+$/, '');
}

/** `allowedHosts`: names, trimmed, empty ones dropped; a text is a JSON list or a comma list. */
function hostListOf(v: unknown): string[] | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  let list: unknown = v;
  if (typeof v === 'string') {
    const text = v.trim();
    try {
      list = text.startsWith('[') ? JSON.parse(text) : text.split(',');
    } catch {
      list = undefined;
    }
  }
  if (!Array.isArray(list) || list.some((h) => typeof h !== 'string'))
    throw new HostSettingsError('allowedHosts must be a list of host names (["hub.lan", ".example.org"], or hub.lan,.example.org as text)');
  return list.map((h: string) => h.trim()).filter(Boolean);
}

/** `trustProxy`: a boolean, or its text. Anything else is refused rather than read as either. */
function flagOf(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === false || v === 'false' || v === '0') return false;
  if (v === true || v === 'true' || v === '1') return true;
  throw new HostSettingsError('trustProxy must be true or false');
}

/** The host policy from raw settings, every value checked; throws `HostSettingsError`. */
export function hostPolicyFrom(raw: RawHostSettings): HostPolicy {
  const baseUrl = baseUrlOf(raw.baseUrl);
  const allowedHosts = hostListOf(raw.allowedHosts);
  return {
    listenHost: raw.listenHost,
    ...(baseUrl ? { baseUrl } : {}),
    ...(allowedHosts ? { allowedHosts } : {}),
    ...(flagOf(raw.trustProxy) ? { trustProxy: true } : {}),
  };
}
