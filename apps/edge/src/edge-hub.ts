import { type AccountConfig, createAccountServices } from '@hub/account';
import {
  type Address,
  accessLog,
  cacheBudget,
  type Hub,
  type IndexStore,
  type Logger,
  loadIndex,
  noMetrics,
  parsePolicy,
  type RequestScope,
  type SourceConfig,
  SourceProber,
  sourceKindProblem,
  teeMetrics,
} from '@hub/core-index';
import { assembleHub, type HubDeps, indexHolder, indexStoreKind, mergeSources, openDay, type SourceEntry } from '@hub/hub';
import { analyticsEngineMetrics } from './analytics-metrics.js';
import { type Env, jsonVar, numberVar, tokenList } from './bindings.js';
import { D1AccountStore } from './d1-account-store.js';
import { edgeHostPolicy } from './host-settings.js';
import { KvMissingLog, kvProbeStorage } from './kv-state.js';
import { type ColoCacheLike, R2ObjectStore } from './r2-object-store.js';

/** The edge's request limit (spec: Limits, "Publish, one request at the edge"). */
export const EDGE_MAX_REQUEST_BYTES = 8 * 1024 * 1024;

/**
 * The most bytes every cache of an isolate keeps in all (Workers allow 128 MB an isolate, the Worker's code and the
 * requests in flight included): 24 MB for the index pages and models, 9.6 MB each for kept answers and objects, 4.8 MB
 * for rows and search pages (index/cache-budget.ts). The var `CACHE_MEGABYTES` sets another total.
 */
export const EDGE_CACHE_BYTES = 48 * 1024 * 1024;

/**
 * The most storage reads one search makes in an isolate (a Worker may make 1,000 storage operations an invocation):
 * a search no term bounds (a rare word of one to three characters) stops there with `more` and no total, instead of
 * failing when the platform refuses the 1,001st operation.
 */
export const EDGE_SEARCH_READS = 600;

/** One hub per `env` (per isolate): the route table, the deps, and what needs refreshing. */
export interface EdgeHub {
  hub: Hub;
  deps: HubDeps;
  health: SourceProber;
  objects: R2ObjectStore;
  /**
   * The scope of one request: its background work goes to that request's own `ctx.waitUntil`
   * (failures logged), never to whichever request happens to finish next.
   */
  scope(waitUntil: (p: Promise<unknown>) => void): RequestScope;
  /** Start background refreshes that are due (the index ref, the probe results); returns them. */
  refresh(now: number): Promise<unknown>[];
  /** Re-read `refs/current` now and switch to a new index when it changed. */
  recheckIndex(): Promise<IndexStore>;
}

/** The Workers runtime's `caches.default` (the data center's cache), when this runtime has one. */
function coloCache(): ColoCacheLike | undefined {
  return (globalThis as { caches?: { default?: ColoCacheLike } }).caches?.default;
}

/** Thrown (and answered as 503) when the bucket holds no index yet. */
export class NoIndexError extends Error {}

/** The sources: defaults, then the `SOURCES` var merged by name (the one merge rule node-server uses too). */
export function sourcesFromEnv(env: Env): SourceConfig[] {
  const extra = jsonVar<SourceEntry[]>(env.SOURCES, 'SOURCES') ?? [];
  if (!Array.isArray(extra)) throw new Error('The var SOURCES must be a JSON array of {name, display, token, kind, url}.');
  const sources = mergeSources(extra);
  const problems = sources.map(sourceKindProblem).filter((p): p is string => Boolean(p));
  if (problems.length) throw new Error(`The var SOURCES: ${problems.join('; ')}`);
  return sources;
}

function accountConfig(env: Env): Partial<AccountConfig> | undefined {
  if (!env.ACCOUNT_PUBLIC_KEY) return undefined;
  const key = env.ACCOUNT_PUBLIC_KEY.trim();
  return {
    publicKey: key.startsWith('{') ? (JSON.parse(key) as Record<string, unknown>) : key,
    ...(env.ACCOUNT_ISSUER ? { issuer: env.ACCOUNT_ISSUER } : {}),
    ...(env.ACCOUNT_AUDIENCE ? { audience: env.ACCOUNT_AUDIENCE } : {}),
    ...(env.ACCOUNT_SITE_ORIGIN ? { siteOrigin: env.ACCOUNT_SITE_ORIGIN } : {}),
  } as Partial<AccountConfig>;
}

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;

/** JSON lines on the console (Workers logs), at or above `level`. */
export function consoleLogger(level = 'info'): Logger {
  const min = LEVELS[level as keyof typeof LEVELS] ?? LEVELS.info;
  const at =
    (name: keyof typeof LEVELS) =>
    (obj: object, msg?: string): void => {
      if (LEVELS[name] < min) return;
      console.log(JSON.stringify({ level: name, time: new Date().toISOString(), ...obj, msg }));
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/**
 * Build the hub for one `env`: R2 objects, the index from `refs/current`, D1 accounts, KV health
 * and missing log, the edge's settings. Called once per isolate (see `worker.ts`).
 */
export async function createEdgeHub(
  env: Env,
  now: () => number = Date.now,
  colo: ColoCacheLike | undefined = coloCache(),
): Promise<EdgeHub> {
  const log = consoleLogger(env.LOG_LEVEL);
  const budget = cacheBudget(numberVar(env.CACHE_MEGABYTES, 'CACHE_MEGABYTES', EDGE_CACHE_BYTES / 2 ** 20) * 2 ** 20);
  const objects = new R2ObjectStore(env.OBJECTS, now, colo, budget.objects);
  const recheckMs = numberVar(env.INDEX_RECHECK_MINUTES, 'INDEX_RECHECK_MINUTES', 5) * 60_000;
  const probeInterval = numberVar(env.PROBE_INTERVAL_SECONDS, 'PROBE_INTERVAL_SECONDS', 60);

  const current = (await objects.readRef('current')) as Address | undefined;
  if (!current)
    throw new NoIndexError(
      'The R2 bucket holds no index (no refs/current): upload one, as apps/edge/README.md "Deploy to the edge" shows.',
    );
  // Metrics: a Workers Analytics Engine dataset when one is bound, the access log when asked; else nothing measured.
  const metrics = teeMetrics(
    env.HUB_METRICS ? analyticsEngineMetrics(env.HUB_METRICS) : noMetrics,
    env.LOG_REQUESTS === true || env.LOG_REQUESTS === 'true' ? accessLog(log) : noMetrics,
  );
  // The day's pages whenever it has them (INDEX_STORE: auto or paged; memory loads it whole; design 11.1): a cold
  // isolate then reads the refs and the pages root before its first look-up, whatever the size of the index. Unlike
  // node-server, `auto` pages small days too: a whole load reads two objects per model in every cold isolate, and a
  // Worker may make 1,000 storage operations an invocation (500 models would spend them all).
  const kind = indexStoreKind(env.INDEX_STORE, 'The var INDEX_STORE');
  const load = (store: R2ObjectStore, catalog: Address) =>
    openDay(store, catalog, kind, () => loadIndex(store, catalog), {
      cacheBytes: budget.index,
      pagedFrom: 0,
      searchReadsMax: EDGE_SEARCH_READS,
      // no pending read or memo shared between requests: in workerd a request that chains on another's read would
      // make its own reads on behalf of that request (paged-index.ts `sharePending`)
      sharePending: false,
    });
  const indexes = indexHolder(objects, await load(objects, current), load, log, metrics);
  let checkedAt = now();
  let checking: Promise<IndexStore> | undefined;

  const sources = sourcesFromEnv(env);
  const order = jsonVar<string[]>(env.ORDER, 'ORDER') ?? sources.map((s) => s.name);
  const health = new SourceProber({
    sources,
    order,
    settings: { intervalSeconds: probeInterval },
    storage: kvProbeStorage(env.STATE),
    now,
    log,
    metrics,
    fetch: (input, init) => fetch(input, init),
  });
  await health.load();

  const guarded = (p: Promise<unknown>) => p.catch((e: unknown) => log.warn({ err: String(e) }, 'background task failed'));
  // Inside a request `scope` ties background work to that request; outside one (none today) it just runs.
  const defer = (p: Promise<unknown>) => {
    void guarded(p);
  };
  const config = accountConfig(env);
  const accounts = await createAccountServices(config, new D1AccountStore(env.ACCOUNTS));
  // The origin of absolute URLs, as the host policy reads it (one reader for both hosts: core-index hostPolicyFrom).
  const { baseUrl } = edgeHostPolicy(env);

  const { hub, deps } = assembleHub({
    index: indexes,
    health,
    objects,
    missing: new KvMissingLog(env.STATE),
    accounts,
    log,
    metrics,
    now,
    defer,
    settings: {
      ...(baseUrl ? { baseUrl } : {}),
      publisherTokens: tokenList(env.PUBLISHER_TOKENS, 'PUBLISHER_TOKENS'),
      registryTokens: tokenList(env.REGISTRY_TOKENS, 'REGISTRY_TOKENS'),
      maxRequestBytes: EDGE_MAX_REQUEST_BYTES,
      ...(config?.siteOrigin ? { siteOrigin: config.siteOrigin } : {}),
      policy: parsePolicy(jsonVar(env.POLICY, 'POLICY'), 'POLICY'),
      role: 'edge',
      cache: budget,
      ...(env.COMMIT ? { commit: env.COMMIT } : {}),
      serverId: 'edge@workerd',
    },
  });

  async function recheckIndex(): Promise<IndexStore> {
    checkedAt = now();
    checking ??= indexes.reload().finally(() => {
      checking = undefined;
    });
    return checking;
  }

  return {
    hub,
    deps,
    health,
    objects,
    scope: (waitUntil) => ({ defer: (p) => waitUntil(guarded(p)) }),
    refresh(at) {
      const out: Promise<unknown>[] = [];
      if (!checking && at - checkedAt >= recheckMs) out.push(recheckIndex());
      const h = health.refreshIfStale(Math.min(probeInterval, 60));
      if (h) out.push(h);
      return out;
    },
    recheckIndex,
  };
}
