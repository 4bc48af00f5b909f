import { stat } from 'node:fs/promises';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {
  type CacheBudget,
  cacheBudget,
  type Hub,
  type HubSettings,
  type IndexStore,
  type Logger,
  parsePolicy,
  SERVER_CACHE_BYTES,
  SourceProber,
} from '@hub/core-index';
import { bucketState } from '@hub/dialect-oci';
import { assembleHub, cacheUse, type HubDeps } from '@hub/hub';
import { DEMO_SOURCE, type DemoMirror, type MirrorFolderServer } from '@hub/node-toolkit';
import { FsObjectStore } from '@hub/objects/node';
import { installFastBlake3 } from './blake3-node.js';
import { FsUploadSessions, sweepUploads } from './bucket-uploads.js';
import type { HubConfigFile } from './config.js';
import { IMPORTED_FILE, UPLOADS_DIR } from './data-folder.js';
import { hostRoutes } from './host-routes.js';
import { hubHttpServer } from './hub-http-server.js';
import { DEFAULT_HOST, listenOn } from './listen.js';
import { createLogger } from './logger.js';
import { type MetricsServer, observabilityFrom } from './metrics-http.js';
import { watchMirrorManifest } from './mirror-watch.js';
import { FileMissingLog } from './missing-log.js';
import { hubListener } from './node-listener.js';
import { fileProbeStorage, probeSettingsFrom } from './prober.js';
import { DEFAULT_LEASE_SECONDS, shareProbes } from './replicas.js';
import { checkConfig, hostPolicyOf } from './settings-check.js';
import { LOCAL_MIRROR, sourcesFromConfig } from './sources-config.js';
import { type Beside, cannotListen, hasMirror, openIndex, startMirrorsBeside } from './start-steps.js';
import { openAccounts } from './stores/open-accounts.js';

export const MAX_MESSAGE_BYTES = 33_554_432;

export interface StartOptions {
  dataDir: string;
  port?: number;
  /** The address to listen on (default 127.0.0.1, loopback; `0.0.0.0` for every interface). */
  host?: string;
  config?: HubConfigFile;
  logger?: Logger;
  /** Start the demo mirror (when the demo index is in use). Default true. */
  demoMirror?: boolean;
}

export interface RunningHub {
  /** A URL this machine reaches the hub by (`http://127.0.0.1:PORT`; a wildcard address is reached over loopback). */
  url: string;
  port: number;
  /** The address actually bound, `address:port` (`127.0.0.1:8080`, `0.0.0.0:8080`, `[::1]:8080`). */
  listening: string;
  mirror?: DemoMirror;
  /** the data folder's local mirror (`DIR/mirror`, filled by `hub bundle import`), served on the next port */
  localMirror?: MirrorFolderServer;
  /** The separate metrics listener (`metricsPort`), when configured. */
  metrics?: MetricsServer;
  deps: HubDeps;
  hub: Hub;
  /** The source prober, which is also the hub's source health (its timer starts after listen). */
  prober: SourceProber;
  /** Re-read the `current` ref and swap in that index without a restart. */
  reload(): Promise<IndexStore>;
  close(): Promise<void>;
}

/**
 * Wire the hub's interfaces to the filesystem, open the day (or seed the demo), start the sources' health, assemble the
 * hub and listen; each step is a function below, in that order, and `close()` undoes them in reverse.
 */
export async function startServer(options: StartOptions): Promise<RunningHub> {
  installFastBlake3();
  const host = options.host ?? DEFAULT_HOST;
  const config = options.config ?? {};
  const log = options.logger ?? createLogger({ level: config.logLevel ?? 'info' });
  // A key, value, source entry or probe setting that cannot work fails the start (ConfigError), before anything is opened.
  checkConfig(config);
  const probeSettings = probeSettingsFrom(config);
  // Metrics and the access log (issue 28): the sink every part emits to; nothing is measured when both are off.
  const observability = await observabilityFrom(config, log, probeSettings.intervalSeconds);
  // One bound on every cache of the process, shared out (core-index cacheBudget; `cacheMegabytes`, HUB_CACHE_MB).
  const budget = cacheBudget(config.cacheMegabytes !== undefined ? config.cacheMegabytes * 2 ** 20 : SERVER_CACHE_BYTES);
  const objects = new FsObjectStore(options.dataDir, undefined, budget.objects);

  const { indexes, seeded, made } = await openIndex(objects, options.dataDir, config, log, observability.metrics, budget.index);

  // Accounts: PostgreSQL when `database` names one, else one SQLite file under the data folder; without
  // account.publicKey the routes answer 503.
  const accountStore = await openAccounts(config, options.dataDir, log);

  // A data folder filled by `hub bundle import` is air-gapped unless the config says otherwise.
  const airGapped = config.airGapped ?? !!(await stat(path.join(options.dataDir, IMPORTED_FILE)).catch(() => undefined));
  // The demo mirror serves the demo bytes whenever the index holds models sourced from it.
  const usesDemo =
    !airGapped &&
    indexes
      .current()
      .sourceKinds()
      .some(([name]) => name === DEMO_SOURCE);
  const beside = await startMirrorsBeside(options, config, host, usesDemo, log);
  const watch = await watchSources({
    dataDir: options.dataDir,
    config,
    beside,
    airGapped,
    probeSettings,
    log,
    metrics: observability.metrics,
  });

  // The one host policy (design 10.1): Host syntax, the loopback rule, a trusted proxy, the origin of absolute URLs.
  const policy = hostPolicyOf(config, host);
  const background = backgroundWork(log);
  const { hub, deps } = assembleHub({
    index: indexes,
    health: watch.health,
    objects,
    missing: new FileMissingLog(options.dataDir),
    accounts: accountStore.services,
    log,
    metrics: observability.metrics,
    now: () => Date.now(),
    defer: background.defer,
    // Every source the index names is in health (assembleHub); air-gapped, the ones no config lists (with their own
    // URL templates) are unreachable from here and never redirected to.
    ...(airGapped ? { indexSourceFields: { redirect: false } } : {}),
    settings: hubSettings(config, policy.baseUrl, budget),
    // Open bucket uploads in the data folder: every process on it continues a push another one started.
    // A lock a killed process left on a session is taken over after three quarters of `leaseSeconds`, like every lease.
    bucketUploads: new FsUploadSessions(path.join(options.dataDir, UPLOADS_DIR), {
      leaseMs: (config.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000,
    }),
  });

  // Idle bucket uploads lose their bytes on time even when no push comes (the sweep also runs on every upload request).
  const uploadSweep = sweepUploads(() => bucketState(deps).uploads.openCount(), log);
  // The 5xx series HubErrors5xx sums and each source's probe series, shown at 0 from the first scrape.
  observability.prom?.declare({ routes: hub.routes, sources: watch.sources.map((s) => s.name) });
  observability.prom?.watchCaches(() => cacheUse(hub, deps), budget);
  observability.prom?.watchMade(made);
  // Hub paths go to the hub; the host's own `/-/` routes (liveness, readiness) are answered beside it, without Koa
  // (host-routes.ts).
  const own = hostRoutes(() => indexes.current());
  const server = hubHttpServer(observability.wrap(hubListener(hub, own, policy)), config, log);
  const opened = { beside, watch, accountStore, background };
  const { bound, metricsServer } = await listen(server, options.port ?? 8080, host, observability, opened);
  log.info(
    {
      listening: bound.listening,
      url: bound.url,
      data: options.dataDir,
      catalog: indexes.current().catalogAddress,
      models: indexes.current().totals.models,
      seeded,
      mirror: beside.mirror?.url,
      metrics: metricsServer?.url,
    },
    'hub listening',
  );
  // The probe rounds' timer starts once the hub listens.
  watch.probes.begin();

  return {
    url: bound.url,
    port: bound.port,
    listening: bound.listening,
    ...(beside.mirror ? { mirror: beside.mirror } : {}),
    ...(beside.localMirror ? { localMirror: beside.localMirror } : {}),
    ...(metricsServer ? { metrics: metricsServer } : {}),
    deps,
    hub,
    prober: watch.health,
    reload: () => indexes.reload(),
    close: () => {
      uploadSweep.stop();
      return shutdown(opened, server, metricsServer);
    },
  };
}

/** What a start has opened, for `listen` to close when it fails and `shutdown` when the hub closes. */
interface Opened {
  beside: Beside;
  watch: SourceWatch;
  accountStore: { close(): Promise<void> };
  background: ReturnType<typeof backgroundWork>;
}

/** The hub's settings from the config (`baseUrl` from the host policy; `policy` checked when the config was read). */
function hubSettings(config: HubConfigFile, baseUrl: string | undefined, cache: CacheBudget): Omit<HubSettings, 'version'> {
  return {
    cache,
    ...(baseUrl ? { baseUrl } : {}),
    publisherTokens: config.publisherTokens ?? [],
    registryTokens: config.registryTokens ?? [],
    maxRequestBytes: MAX_MESSAGE_BYTES,
    ...(config.bucketMaxBytes !== undefined ? { bucketMaxBytes: config.bucketMaxBytes } : {}),
    ...(config.account?.siteOrigin ? { siteOrigin: config.account.siteOrigin } : {}),
    // refused files answer 403 PolicyRefused on every dialect
    policy: parsePolicy(config.policy),
    role: 'server',
    serverId: `node-server@${os.hostname()}`,
  };
}

/** Background work (the missing log, …) kept until it settles, so a close can let it finish its writes. */
function backgroundWork(log: Logger) {
  const pending = new Set<Promise<unknown>>();
  return {
    defer(p: Promise<unknown>): void {
      const guarded = p.catch((e: unknown) => log.warn({ err: String(e) }, 'background task failed'));
      pending.add(guarded);
      void guarded.finally(() => pending.delete(guarded));
    },
    settled: () => Promise.allSettled([...pending]),
  };
}

/**
 * The listener on its address, then the metrics port when configured. A port that cannot be had closes what the
 * start opened and is one line (`cannotListen`). Node checks the header and request timeouts on
 * `connectionsCheckingInterval` (hub-http-server.ts; its default, 30 s, would stretch them).
 */
async function listen(
  server: Server,
  port: number,
  host: string,
  observability: Awaited<ReturnType<typeof observabilityFrom>>,
  opened: Opened,
): Promise<{ bound: Awaited<ReturnType<typeof listenOn>>; metricsServer: MetricsServer | undefined }> {
  const bound = await listenOn(server, port, host).catch(async (e: NodeJS.ErrnoException) => {
    await opened.beside.mirror?.close();
    await opened.beside.localMirror?.close();
    opened.watch.mirrorWatch?.close();
    await opened.watch.probes.stop();
    await opened.accountStore.close();
    throw cannotListen(host, port, e);
  });
  const metricsServer = await observability.listen(server).catch(async (e: unknown) => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw e;
  });
  return { bound, metricsServer };
}

/**
 * `close()`: the timers stop, the metrics port and the listener close (their connections with them), the background
 * work the last requests started finishes writing to the data folder, then the mirrors and the accounts close.
 */
async function shutdown(opened: Opened, server: Server, metricsServer: MetricsServer | undefined): Promise<void> {
  opened.watch.mirrorWatch?.close();
  await opened.watch.probes.stop();
  await opened.watch.health.stop();
  // The metrics port first: it hands its connections to `server`.
  await metricsServer?.close();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
  // No request is in flight any more: let the background work they started finish writing to the data folder.
  await opened.background.settled();
  await opened.beside.mirror?.close();
  await opened.beside.localMirror?.close();
  await opened.accountStore.close();
}

type SourceWatch = Awaited<ReturnType<typeof watchSources>>;

/**
 * The sources the hub redirects to and their health: the config's, the demo mirror and the data folder's mirror, in
 * `order` (mirrors first); the last probe results restored from the data folder before listening (the rounds' timer
 * starts after it, `probes.begin()`); the rounds shared with other processes on the data folder (replicas.ts); the
 * data folder's mirror re-read whenever its manifest changes.
 */
async function watchSources(start: {
  dataDir: string;
  config: HubConfigFile;
  beside: Beside;
  airGapped: boolean;
  probeSettings: ReturnType<typeof probeSettingsFrom>;
  log: Logger;
  metrics: HubDeps['metrics'];
}) {
  const { dataDir, config, beside, airGapped, probeSettings, log, metrics } = start;
  const { mirror, localMirror, mirrorDir, configuredMirror } = beside;
  const ownMirror = localMirror
    ? { url: localMirror.url, beside: true }
    : configuredMirror?.url
      ? { url: configuredMirror.url, beside: false }
      : undefined;
  const sources = sourcesFromConfig(config, mirror, ownMirror, airGapped);
  const mirrors = sources.filter((s) => s.kind === 'mirror').map((s) => s.name);
  const order = config.order ?? [
    // mirrors first (an operator's local copy), then the demo mirror, then the rest as configured
    ...mirrors,
    ...(mirror ? [DEMO_SOURCE] : []),
    ...sources.map((s) => s.name).filter((n) => n !== DEMO_SOURCE && !mirrors.includes(n)),
  ];
  // Probes: the last results (data folder) are restored before listening; rounds run on a timer after it.
  const health = new SourceProber({
    sources,
    order,
    settings: probeSettings,
    storage: fileProbeStorage(dataDir, log),
    log,
    metrics,
  });
  await health.load();
  // Several processes on this data folder: one runs the probe rounds, the others follow its probes.json (replicas.ts).
  const probes = await shareProbes(health, dataDir, {
    ...(config.leaseSeconds !== undefined ? { leaseSeconds: config.leaseSeconds } : {}),
    log,
  });
  // What each mirror holds is known before the first request (its manifest read, one held file hashed); a process that
  // follows another's rounds reads it from there.
  if (mirrors.length > 0 && probes.held) await health.round({ force: true, only: mirrors });
  // The data folder's mirror is re-read as soon as its manifest changes (a `hub mirror verify` moving a file aside), by
  // the process that runs the probe rounds; the others read the result from probes.json.
  const mirrorWatch =
    ownMirror && (await hasMirror(mirrorDir))
      ? watchMirrorManifest(
          mirrorDir,
          () => {
            if (!probes.held) return;
            void health
              .round({ force: true, only: [LOCAL_MIRROR] })
              .catch((e: unknown) => log.warn({ err: String(e) }, 'mirror re-read failed'));
          },
          log,
        )
      : undefined;
  return { sources, health, probes, mirrorWatch };
}
