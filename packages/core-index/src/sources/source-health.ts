import type { HubHealth, SourceObject, SourceState } from '../index/schemas.js';
import { fileUrlAt, type SourceConfig } from '../index/source-kinds.js';
import { type MirrorHolding, mirrorHolds } from './mirror-manifest.js';
import {
  emptyProbeState,
  type ProbeReason,
  type ProbeSettings,
  type ProbeState,
  probeRetryAfterSeconds,
  probeSettings,
  recordOutcome,
} from './prober.js';

export interface SourceChoice {
  /** health key */
  source: string;
  display: string;
  url: string;
}

export type ChooseResult =
  /**
   * `choice` is where the hub sends the client; `live` is every live source holding the file in the same preference
   * order (`choice` first): what `Link: rel="duplicate"` lists on a resolve redirect (RFC 6249), so a client can fetch
   * ranges from several at once.
   */
  | { ok: true; choice: SourceChoice; live: SourceChoice[] }
  /**
   * Sources hold the file but none is healthy. `lacking`: the configured mirrors that do not hold it. `plainHttp`: the
   * holders beside the hub that speak plain http while the client reached the hub over https (never sent there).
   */
  | { ok: false; reason: 'none-ok'; holders: string[]; lacking?: string[]; plainHttp?: string[] }
  /** No source in the index holds the file. */
  | { ok: false; reason: 'no-source'; holders: []; lacking?: string[]; plainHttp?: undefined };

/** A configured mirror source and what its last manifest said it holds. */
export interface MirrorSource {
  config: SourceConfig;
  holding: MirrorHolding | undefined;
}

export interface ChooseInput {
  id: string;
  revision: string;
  path: string;
  /** the file's SHA-256 (from the index): `{sha256}` in templates, and what a mirror source is chosen by */
  sha256?: string;
  sources: SourceObject[];
  /** a `/via/{token}/` token, when the request named one */
  via?: string;
  /** rules a client puts on redirect targets (for example today's Ollama: see `ollamaRedirectRules`) */
  rules?: RedirectRules;
  /**
   * The origin the client reached the hub by (`baseUrl`, a trusted proxy's, or the validated `Host`), for sources that
   * run beside it (`SourceConfig.onHubHost`): their redirects name its host, and an https origin never gets one.
   */
  hubOrigin?: string | undefined;
  /**
   * The client follows a redirect only to another host name (Ollama's blob GET, protocols.md 0): on loopback, a
   * source beside the hub is named by the other loopback spelling (`127.0.0.1` ↔ `localhost`).
   */
  otherHostName?: boolean;
}

/** What a client accepts as a redirect target. */
export interface RedirectRules {
  /** a target failing this is never chosen */
  must?: (url: URL) => boolean;
  /** a target failing this is chosen only when no other live source passes */
  prefer?: (url: URL) => boolean;
}

/** Loopback, private, link-local and `.local` hosts: where a LAN mirror lives. */
export function isLocalHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local') || h.endsWith('.lan') || h.endsWith('.internal')) return true;
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(h);
  if (v4) {
    const [a, b] = [Number(v4[1]), Number(v4[2])];
    return (
      a === 10 ||
      a === 127 ||
      a === 0 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  return h === '::1' || h === '::' || /^f[cd][0-9a-f]{2}:/.test(h) || /^fe[89ab][0-9a-f]:/.test(h);
}

/**
 * Redirect rules for Ollama 0.34.2 and later (ollama#18512, #18533; clients-2026.md 0.3): it checks the
 * scheme and resolved address of every redirect target and refuses https→http, so an https hub never
 * sends it to an http source; targets on local or private addresses are refused unless allowlisted, so
 * they are used only when no other live source holds the file (and the hub itself is not local).
 */
export function ollamaRedirectRules(hubOrigin: string): RedirectRules {
  let hub: URL | undefined;
  try {
    hub = new URL(hubOrigin);
  } catch {
    hub = undefined;
  }
  const https = hub?.protocol === 'https:';
  const hubLocal = hub ? isLocalHost(hub.hostname) : false;
  return {
    must: https ? (u) => u.protocol === 'https:' : undefined,
    prefer: hubLocal ? undefined : (u) => !isLocalHost(u.hostname),
  };
}

/** True when the request comes from Ollama (its User-Agent is `ollama/<version> …`). */
export function isOllama(userAgent: string | null | undefined): boolean {
  return !!userAgent && userAgent.toLowerCase().startsWith('ollama/');
}

export interface SourceHealth {
  /** What `/api/hub/health` shows. */
  snapshot(): HubHealth;
  choose(input: ChooseInput): ChooseResult;
  /** The source configuration by health key (configured or default). */
  source(name: string): SourceConfig | undefined;
  /** The display spelling of a source, by health key. */
  display(name: string): string;
  /** Seconds until the next probe round; the `Retry-After` for a 503 when nothing is live. */
  retryAfterSeconds(): number;
  /** The configured mirror sources with what each last said it holds (design 10.3). */
  mirrorSources?(): MirrorSource[];
  /**
   * Know these sources too (the ones the served index names that no configuration does; issue 27): each name not
   * known yet is added, offered like any source without a probe file, and appended to the order. Known names are
   * left as they are.
   */
  include?(sources: readonly SourceConfig[]): void;
  /**
   * A number that changes whenever what `choose` and `snapshot` answer may change (a probe outcome, a load of the
   * stored state). Whole answers that depend on health are kept only while it stays the same (`Route.reuse`);
   * without it they are not kept.
   */
  version?(): number;
}

export function sourceHolds(object: SourceObject, path: string): boolean {
  return !object.paths || object.paths.includes(path);
}

/**
 * The source-choice function of design section 4: the first source in `order` that is ok and holds
 * the file; a known `/via/` token whose source holds the file and is ok goes first; an unknown
 * token falls back to the default order.
 */
export function chooseSource(
  input: ChooseInput,
  order: string[],
  state: (name: string) => SourceState,
  config: (name: string) => SourceConfig | undefined,
  mirrors: readonly MirrorSource[] = [],
): ChooseResult {
  const holders = input.sources.filter(
    (s) => sourceHolds(s, input.path) && config(s.source)?.redirect !== false && config(s.source)?.kind !== 'mirror',
  );
  // A mirror holds a file when its manifest lists the file's SHA-256 (design 10.3), whatever the index names.
  for (const m of mirrors) {
    if (m.config.redirect === false || !mirrorHolds(m.holding, input.sha256)) continue;
    holders.push({ kind: 'model-hub.source', model: input.id, revision: input.revision, source: m.config.name, type: 'mirror' });
  }
  const lacking = mirrors.filter((m) => m.config.redirect !== false && !mirrorHolds(m.holding, input.sha256)).map((m) => m.config.name);
  const also = lacking.length > 0 ? { lacking } : {};
  if (holders.length === 0) return { ok: false, reason: 'no-source', holders: [], ...also };
  const rank = (name: string) => {
    const i = order.indexOf(name);
    return i === -1 ? order.length : i;
  };
  holders.sort((a, b) => rank(a.source) - rank(b.source));
  if (input.via) {
    const token = input.via.toLowerCase();
    const i = holders.findIndex((h) => {
      const c = config(h.source);
      return (c?.token ?? h.source).toLowerCase() === token || h.source.toLowerCase() === token;
    });
    if (i > 0) holders.unshift(...holders.splice(i, 1));
  }
  const rules = input.rules;
  const live: SourceChoice[] = [];
  const fallbacks: SourceChoice[] = [];
  const plainHttp: string[] = [];
  for (const h of holders) {
    if (!state(h.source).ok) continue;
    const c = config(h.source);
    const expanded = sourceUrl(h, c, input);
    const url = expanded && c?.onHubHost && input.hubOrigin ? onHubHost(expanded, input.hubOrigin, !!input.otherHostName) : expanded;
    if (url === PLAIN_HTTP) plainHttp.push(h.source);
    if (!url || url === PLAIN_HTTP) continue;
    const choice = { source: h.source, display: config(h.source)?.display ?? h.source, url };
    if (rules) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        continue;
      }
      if (rules.must && !rules.must(parsed)) continue;
      if (rules.prefer && !rules.prefer(parsed)) {
        fallbacks.push(choice);
        continue;
      }
    }
    live.push(choice);
  }
  live.push(...fallbacks);
  const [first] = live;
  if (first) return { ok: true, choice: first, live };
  return { ok: false, reason: 'none-ok', holders: holders.map((h) => h.source), ...also, ...(plainHttp.length ? { plainHttp } : {}) };
}

/** What {@link onHubHost} answers for a plain-http URL when the client reached the hub over https. */
const PLAIN_HTTP = 'plain-http';

/**
 * A URL on the hub's machine, named by the host the client reached the hub by (that host is where the hub, and so the
 * server beside it, listens), keeping the URL's scheme, port and path. {@link PLAIN_HTTP} when the client reached the
 * hub over https and the URL is plain http: an https client is never sent to http. A client that follows a redirect
 * only to another host name (`otherName`) is sent from `127.0.0.1` to `localhost` and back: both reach a
 * loopback-bound server.
 */
function onHubHost(url: string, hubOrigin: string, otherName: boolean): string | undefined {
  let u: URL;
  let hub: URL;
  try {
    u = new URL(url);
    hub = new URL(hubOrigin);
  } catch {
    return undefined;
  }
  if (hub.protocol === 'https:' && u.protocol !== 'https:') return PLAIN_HTTP;
  const h = hub.hostname;
  u.hostname = otherName && (h === 'localhost' || h === '127.0.0.1') ? (h === 'localhost' ? '127.0.0.1' : 'localhost') : h;
  return u.href;
}

/** The URL of one file at the source an index object names (its configuration first, else the object's own URL). */
function sourceUrl(object: SourceObject, config: SourceConfig | undefined, v: ChooseInput): string | undefined {
  if (object.type === 'svc') return undefined;
  const file = {
    id: object.remote_id ?? v.id,
    revision: object.remote_revision ?? v.revision,
    path: v.path,
    ...(object.root ? { root: object.root } : {}),
    ...(v.sha256 ? { sha256: v.sha256 } : {}),
  };
  // a configured mirror is addressed by SHA-256 whatever kind the index gave the object
  return fileUrlAt(config?.kind === 'mirror' ? 'mirror' : object.type, config?.url ?? object.url, file);
}

export interface ProbeResult {
  ok: boolean;
  reason: string;
  /** when the probe ran (ms since epoch) */
  at: number;
}

export interface HealthOptions {
  /** The probe schedule (intervals, retries); defaults as `DEFAULT_PROBE_SETTINGS`. */
  settings?: Partial<ProbeSettings>;
  /** The clock (ms since epoch) for `Retry-After`. */
  now?: () => number;
}

/** A source that was never probed: offered, not checked. */
const NEVER_PROBED: SourceState = Object.freeze({ ok: true, checked: null }) as SourceState;

/**
 * Source health: configured sources, the preference order and the probe record of each. The one health state is
 * the prober's {@link ProbeState} (what a host persists): `snapshot`, `choose` and `retryAfterSeconds` read it, and
 * {@link SourceProber} (which extends this class) writes it. Without a prober (tests, a hub with no probe files)
 * every source is offered unchecked until `record` says otherwise.
 */
export class MemorySourceHealth implements SourceHealth {
  private readonly configs = new Map<string, SourceConfig>();
  protected probes: ProbeState = emptyProbeState();
  /** Bumped by every change of `probes` (see {@link version}). */
  private generation = 0;
  protected readonly settings: ProbeSettings;
  protected readonly now: () => number;
  private readonly order: string[];

  constructor(sources: SourceConfig[], order: readonly string[], options: HealthOptions = {}) {
    for (const s of sources) this.configs.set(s.name, s);
    this.order = [...order];
    this.settings = probeSettings(options.settings);
    this.now = options.now ?? Date.now;
  }

  source(name: string): SourceConfig | undefined {
    return this.configs.get(name);
  }

  display(name: string): string {
    return this.configs.get(name)?.display ?? name;
  }

  sources(): SourceConfig[] {
    return [...this.configs.values()];
  }

  include(sources: readonly SourceConfig[]): void {
    let added = false;
    for (const s of sources) {
      if (this.configs.has(s.name)) continue;
      this.configs.set(s.name, s);
      if (!this.order.includes(s.name)) this.order.push(s.name);
      added = true;
    }
    if (added) this.changed();
  }

  /** Fold one probe result into the state, exactly as a probe's outcome is folded (schedule included). */
  record(name: string, result: ProbeResult): void {
    const source = this.configs.get(name);
    if (!source) return;
    const outcome = { name, ok: result.ok, reason: result.reason as ProbeReason, at: result.at, ms: 0, url: '' };
    recordOutcome(this.probes, source, outcome, this.settings);
    this.changed();
  }

  version(): number {
    return this.generation;
  }

  /** The probe state changed (an outcome folded in, the stored state loaded): answers that depend on it are stale. */
  protected changed(): void {
    this.generation++;
  }

  /** The probe state (what a host persists): the one record of every probed source. */
  probeState(): ProbeState {
    return this.probes;
  }

  state(name: string): SourceState {
    return this.probes.sources[name] ?? NEVER_PROBED;
  }

  snapshot(): HubHealth {
    const sources: Record<string, SourceState> = {};
    for (const c of this.configs.values()) {
      if (c.redirect === false) continue;
      const r = this.probes.sources[c.name];
      sources[c.name] = r ? { ok: r.ok, checked: r.checked, ...(r.reason ? { reason: r.reason } : {}) } : { ok: true, checked: null };
      if (c.kind === 'mirror') {
        const h = this.probes.mirrors?.[c.name];
        // what the mirror holds, from its last manifest (design 10.3): files, bytes, and when it was last re-hashed
        sources[c.name] = {
          ...sources[c.name],
          mirror: { files: h?.files ?? 0, bytes: h?.bytes ?? 0, verified: h?.verified ?? null },
        } as SourceState;
      }
    }
    return { sources, order: [...this.order] };
  }

  choose(input: ChooseInput): ChooseResult {
    const result = chooseSource(
      input,
      this.order,
      (n) => this.state(n),
      (n) => this.configs.get(n),
      this.mirrorSources(),
    );
    // Nobody can serve a file that is being asked for: the prober (if one runs here) re-checks its holders sooner.
    if (!result.ok && result.reason === 'none-ok') this.wanted(result.holders);
    return result;
  }

  /** The configured mirror sources with what each last said it holds. */
  mirrorSources(): MirrorSource[] {
    const out: MirrorSource[] = [];
    for (const c of this.configs.values()) if (c.kind === 'mirror') out.push({ config: c, holding: this.probes.mirrors?.[c.name] });
    return out;
  }

  /** Failing sources hold a file that was asked for and could not be served (a running prober pulls them forward). */
  protected wanted(_holders: string[]): void {}

  /** Seconds until the earliest failing source is re-checked (at least 1), else the probe interval. */
  retryAfterSeconds(): number {
    return probeRetryAfterSeconds(this.probes, this.now(), this.settings);
  }
}
