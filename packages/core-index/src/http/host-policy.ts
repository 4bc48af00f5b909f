/**
 * The one host policy (design 10.1, issue 26): what a `Host` header may be, which names a loopback-bound hub
 * answers for (the DNS-rebinding rule of the MCP Streamable HTTP security guidance), what a trusted reverse proxy may
 * say (`Forwarded`, `X-Forwarded-Proto`, `X-Forwarded-Host`), and the origin absolute URLs are built from. Pure:
 * both hosts call it through `hub.admit` before any handler runs.
 */

/** What a host tells the policy about where it listens and who stands in front of it. */
export interface HostPolicy {
  /** The address the host listens on (`127.0.0.1`, `::1`, `localhost`, `0.0.0.0`, …). */
  listenHost: string;
  /** The configured public origin: every absolute URL is built from it, and its host is always answered. */
  baseUrl?: string;
  /**
   * Host names (a port is ignored) a loopback-bound hub answers besides loopback names (config `allowedHosts`).
   * A leading dot allows the name and every subdomain (`.example.org`), as Django's `ALLOWED_HOSTS`.
   */
  allowedHosts?: readonly string[];
  /** Behind a reverse proxy: take scheme and host from `Forwarded` / `X-Forwarded-*` (off by default). */
  trustProxy?: boolean;
}

/** A `Host` value the WHATWG URL host parser accepted, serialised by it (lower case, IDNA, IPv4 normalised). */
export interface ParsedHost {
  /** `hostname[:port]`, the default port of the scheme dropped */
  host: string;
  /** the name or address alone (IPv6 in brackets) */
  hostname: string;
  /** `scheme://host` */
  origin: string;
}

/**
 * Characters a `Host` value never holds: controls and spaces (the URL parser would strip or drop some of them
 * silently), anything outside ASCII (RFC 9112 section 3.2), and the delimiters that would make the parser read
 * user info, a path, a query or a fragment (`@`, `/`, `\`, `?`, `#`).
 */
const DELIMITERS = /[/\\?#@]/;

function notInHost(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) return true;
  }
  return DELIMITERS.test(value);
}

/**
 * Parse a `Host` value (or a forwarded host) alone as `host[:port]` with the WHATWG URL parser, the parser every
 * client builds URLs with. Returns undefined for anything it would reject: `xn--`, `a b`, `%00`, `a@b`, `[`, `/`,
 * `?`, `#`, a port over 65535, an empty name.
 */
export function parseHost(value: string, scheme: 'http' | 'https' = 'http'): ParsedHost | undefined {
  const memo = parsedHosts[scheme];
  const kept = memo.get(value);
  if (kept !== undefined) return kept ?? undefined;
  const parsed = parseHostOnce(value, scheme);
  if (value.length <= 512) {
    // Bounded: a client sending a new Host on every request only ever empties the memo, never grows it.
    if (memo.size >= PARSED_HOSTS_MAX) memo.clear();
    memo.set(value, parsed ?? null);
  }
  return parsed;
}

/**
 * Hosts already parsed, per scheme (issue 31, hot path): a hub is reached under a handful of names, and the URL
 * parser costs about half of the gate's time per request. Values are frozen, so a caller cannot change a kept one.
 */
const PARSED_HOSTS_MAX = 512;
const parsedHosts = { http: new Map<string, ParsedHost | null>(), https: new Map<string, ParsedHost | null>() };

function parseHostOnce(value: string, scheme: 'http' | 'https'): ParsedHost | undefined {
  if (value === '' || value.length > 512 || notInHost(value)) return undefined;
  let u: URL;
  try {
    u = new URL(`${scheme}://${value}/`);
  } catch {
    return undefined;
  }
  if (!u.hostname || u.username || u.password || u.pathname !== '/' || u.search || u.hash) return undefined;
  return Object.freeze({ host: u.host, hostname: u.hostname, origin: u.origin });
}

/** A loopback name or address: `localhost`, `*.localhost`, 127.0.0.0/8, `::1` (as the URL parser writes them). */
export function isLoopbackName(name: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  return (
    n === 'localhost' ||
    n.endsWith('.localhost') ||
    n === '[::1]' ||
    n === '::1' ||
    n === '[::ffff:7f00:1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(n)
  );
}

/** The host name of a configured name (`hub.lan`, `hub.lan:8080`, `.example.org`), as the URL parser writes it. */
function configuredName(entry: string): string | undefined {
  const trimmed = entry.trim();
  const dot = trimmed.startsWith('.');
  const parsed = parseHost(dot ? trimmed.slice(1) : trimmed);
  if (!parsed) return undefined;
  return dot ? `.${parsed.hostname}` : parsed.hostname;
}

function baseUrlName(baseUrl: string | undefined): string | undefined {
  if (!baseUrl) return undefined;
  try {
    return new URL(baseUrl).hostname;
  } catch {
    return undefined;
  }
}

/** Names a loopback-bound hub answers for, built once per policy. */
const answered = new WeakMap<HostPolicy, ((hostname: string) => boolean) & { bound: boolean }>();

function answersFor(policy: HostPolicy): ((hostname: string) => boolean) & { bound: boolean } {
  let test = answered.get(policy);
  if (!test) {
    const exact = new Set<string>();
    const suffixes: string[] = [];
    for (const entry of policy.allowedHosts ?? []) {
      const name = configuredName(entry);
      if (!name) continue;
      if (name.startsWith('.')) {
        suffixes.push(name);
        exact.add(name.slice(1));
      } else exact.add(name);
    }
    const base = baseUrlName(policy.baseUrl);
    if (base) exact.add(base);
    const decided = new Map<string, boolean>();
    const decide = (hostname: string) => {
      let yes = decided.get(hostname);
      if (yes === undefined) {
        const n = hostname.replace(/\.$/, '');
        yes = isLoopbackName(n) || exact.has(n) || suffixes.some((s) => n.endsWith(s));
        // Bounded as the parsed hosts are.
        if (decided.size >= PARSED_HOSTS_MAX) decided.clear();
        decided.set(hostname, yes);
      }
      return yes;
    };
    test = Object.assign(decide, { bound: boundToLoopback(policy) });
    answered.set(policy, test);
  }
  return test;
}

/** Is the hub bound to a loopback address only (so it answers only loopback names and the configured ones)? */
export function boundToLoopback(policy: HostPolicy): boolean {
  return isLoopbackName(policy.listenHost);
}

/**
 * The DNS-rebinding rule. A hub listening on a loopback address refuses a request whose (effective) host is not a
 * loopback name or address, `baseUrl`'s host or one of `allowedHosts`; and on `/mcp` or a state-changing method, one
 * whose `Origin` names another site (the opaque `null` origin included). Hubs bound to other addresses are public
 * deployments and are not restricted here. Returns the refusal message (which never repeats what the client sent),
 * or undefined when the request may go on.
 */
export function rebindingRefusal(
  policy: HostPolicy,
  req: { method: string; path: string; hostname: string; origin: string | null | undefined },
): string | undefined {
  const ok = answersFor(policy);
  if (!ok.bound) return undefined;
  if (!ok(req.hostname)) {
    return 'This hub listens on a loopback address and answers only loopback names (DNS rebinding guard). To serve it under another name, add that name to the allowedHosts setting or set baseUrl.';
  }
  const stateChanging = req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS';
  if (req.origin && (stateChanging || req.path === '/mcp')) {
    let originName: string | undefined;
    try {
      originName = new URL(req.origin).hostname;
    } catch {
      originName = undefined;
    }
    if (!originName || !ok(originName)) {
      return 'This hub listens on a loopback address and refuses this request from another web origin (DNS rebinding guard). To allow a site, add its host name to the allowedHosts setting.';
    }
  }
  return undefined;
}

/** What a trusted proxy says about the client's request: scheme and host, each when given. */
export interface Forwarded {
  proto?: string;
  host?: string;
}

/** The first comma-separated value of a header (the proxy nearest the client), trimmed. */
function firstValue(v: string | null): string | undefined {
  if (v === null) return undefined;
  const first = v.split(',')[0]?.trim();
  return first || undefined;
}

/**
 * Scheme and host from RFC 7239 `Forwarded` (its first element: the proxy nearest the client), else from
 * `X-Forwarded-Proto` and `X-Forwarded-Host`. Read only when the operator set `trustProxy`.
 */
export function forwardedOf(header: (name: string) => string | null): Forwarded {
  const out: Forwarded = {};
  const fwd = firstValue(header('forwarded'));
  if (fwd) {
    for (const pair of fwd.split(';')) {
      const eq = pair.indexOf('=');
      if (eq === -1) continue;
      const key = pair.slice(0, eq).trim().toLowerCase();
      let value = pair.slice(eq + 1).trim();
      if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1).replace(/\\(.)/g, '$1');
      if (key === 'proto' && out.proto === undefined) out.proto = value.toLowerCase();
      if (key === 'host' && out.host === undefined) out.host = value;
    }
  }
  out.proto ??= firstValue(header('x-forwarded-proto'))?.toLowerCase();
  out.host ??= firstValue(header('x-forwarded-host'));
  return out;
}

export type HostDecision =
  /** `effective`: the scheme and host the client used (a trusted proxy's, else the connection's and `Host`) */
  { ok: true; effective: ParsedHost; origin: string } | { ok: false; status: 400 | 403; code: string; message: string };

/**
 * The whole policy for one request, in order: the `Host` value parsed alone (invalid → 400); behind a trusted proxy
 * the forwarded scheme and host (invalid → 400); the rebinding rule on the effective host (→ 403); and the origin of
 * absolute URLs: `baseUrl` when set, else the scheme and host that passed the checks above.
 */
export function decideHost(
  policy: HostPolicy | undefined,
  req: { method: string; path: string; protocol: string; header: (name: string) => string | null },
): HostDecision {
  const scheme = req.protocol === 'https' ? 'https' : 'http';
  const host = parseHost(req.header('host') ?? 'localhost', scheme);
  if (!host) {
    return {
      ok: false,
      status: 400,
      code: 'BAD_REQUEST',
      message: 'The Host header is not a valid host[:port] (RFC 9112 section 3.2; parsed as the WHATWG URL parser does).',
    };
  }
  let effective = host;
  let effectiveScheme: 'http' | 'https' = scheme;
  if (policy?.trustProxy) {
    const fwd = forwardedOf(req.header);
    if (fwd.proto !== undefined) {
      if (fwd.proto !== 'http' && fwd.proto !== 'https') {
        return {
          ok: false,
          status: 400,
          code: 'BAD_REQUEST',
          message: 'The forwarded scheme (Forwarded proto= or X-Forwarded-Proto) must be http or https.',
        };
      }
      effectiveScheme = fwd.proto;
    }
    const forwardedHost = fwd.host === undefined ? host : parseHost(fwd.host, effectiveScheme);
    if (!forwardedHost) {
      return {
        ok: false,
        status: 400,
        code: 'BAD_REQUEST',
        message: 'The forwarded host (Forwarded host= or X-Forwarded-Host) is not a valid host[:port].',
      };
    }
    effective = fwd.host === undefined ? (parseHost(host.host, effectiveScheme) ?? host) : forwardedHost;
  }
  if (policy) {
    const refusal = rebindingRefusal(policy, {
      method: req.method.toUpperCase(),
      path: req.path,
      hostname: effective.hostname,
      origin: req.header('origin'),
    });
    if (refusal) return { ok: false, status: 403, code: 'FORBIDDEN_HOST', message: refusal };
  }
  return { ok: true, effective, origin: policy?.baseUrl ?? effective.origin };
}
