import type { AccountServices } from '@hub/account';
import {
  type Address,
  createHub,
  DEFAULT_SOURCES,
  type Hub,
  type HubSettings,
  type IndexStore,
  type Logger,
  type Metrics,
  type MissingLog,
  noMetrics,
  type ObjectStore,
  type SourceConfig,
  type SourceHealth,
} from '@hub/core-index';
import type { BucketDeps } from '@hub/dialect-oci';
import { type HubDeps, hubRoutes } from './routes.js';

/**
 * The one host-neutral setup (issue 13): what node-server and the edge both build, written once. A host brings its
 * stores (objects, health, missing log, accounts), its logger and its settings; this merges the sources, holds and
 * reloads the index, fills in the version and builds the deps and the hub.
 */

/** The code version both hosts report (the capability manifest, health, the conformance suite compares them). */
export const HUB_VERSION = '0.1.0';

/** A source entry of a host's configuration: a name, and whatever it sets or overrides. */
export type SourceEntry = Partial<SourceConfig> & { name: string };

/**
 * The sources a hub knows: the built-in defaults, then the host's own (the demo mirror), then the configured
 * entries merged by name over them (an entry with a known name overrides only the fields it sets).
 */
export function mergeSources(configured: readonly SourceEntry[] = [], own: readonly SourceConfig[] = []): SourceConfig[] {
  const byName = new Map<string, SourceConfig>(DEFAULT_SOURCES.map((s) => [s.name, { ...s }]));
  for (const s of own) byName.set(s.name, { ...s });
  for (const s of configured) {
    const prev = byName.get(s.name);
    byName.set(s.name, { ...(prev ?? { display: s.name, token: s.name, kind: 'http' }), ...s } as SourceConfig);
  }
  return [...byName.values()];
}

/**
 * Every source the index names, as a host knows one that no configuration names (issue 27): the index's name as its
 * display and `/via/` token, its kind from the source objects, no URL of its own (each object's URL is used), no probe
 * file. Built once per index.
 */
function indexSources(index: IndexStore): readonly SourceConfig[] {
  return index.memo('hub:index-sources', () => {
    return index
      .sourceKinds()
      .map(([name, type]): SourceConfig => ({ name, display: name, token: name, kind: type === 'ipfs' ? 'ipfs' : 'http' }));
  });
}

/** The index a hub serves, and the one way it switches to a new day: re-read `refs/current`, load it, swap. */
export interface IndexHolder {
  current(): IndexStore;
  /** Re-read `refs/current` and switch when it changed; concurrent calls share one reload. */
  reload(): Promise<IndexStore>;
}

export function indexHolder<S extends ObjectStore>(
  objects: S,
  first: IndexStore,
  load: (objects: S, catalog: Address) => Promise<IndexStore>,
  log: Logger,
  metrics: Metrics = noMetrics,
): IndexHolder {
  let index = first;
  let pending: Promise<IndexStore> | undefined;
  const served = (i: IndexStore) => metrics.emit({ type: 'index', snapshot: i.snapshot, models: i.totals.models, files: i.totals.files });
  served(first);
  return {
    current: () => index,
    reload() {
      pending ??= (async () => {
        try {
          const next = (await objects.readRef('current')) as Address | null | undefined;
          if (next && next !== index.catalogAddress) {
            index = await load(objects, next);
            served(index);
            log.info({ catalog: next, models: index.totals.models }, 'switched to a new index');
          }
          return index;
        } finally {
          pending = undefined;
        }
      })();
      return pending;
    },
  };
}

/** What a host supplies; `version` is filled in here. */
export interface HostParts {
  index: IndexHolder;
  objects: ObjectStore;
  health: SourceHealth;
  missing: MissingLog;
  accounts: AccountServices;
  log: Logger;
  /** The host's metrics sink (default: none). */
  metrics?: Metrics;
  now: () => number;
  /** background work the host keeps alive (node: nothing to do; the edge: the request's waitUntil) */
  defer: (p: Promise<unknown>) => void;
  settings: Omit<HubSettings, 'version'>;
  /**
   * Fields set on every source the served index names that the host's sources do not (default: none, so they are
   * redirected to like any other; an air-gapped node-server sets `redirect: false`).
   */
  indexSourceFields?: Pick<SourceConfig, 'redirect'>;
  /** Where the open blob uploads of bucket pushes live (default: memory; node-server: the data folder). */
  bucketUploads?: BucketDeps['bucketUploads'];
}

/** The deps every route reads and the hub over the full route table. */
export function assembleHub(parts: HostParts): { hub: Hub; deps: HubDeps } {
  // Health knows every source the served index names (issue 27), checked on each read of the index: a switch to a new
  // day adds the new day's sources before the first answer that reads it.
  let named: IndexStore | undefined;
  const fields = parts.indexSourceFields ?? {};
  const index = (): IndexStore => {
    const current = parts.index.current();
    if (current !== named) {
      named = current;
      parts.health.include?.(indexSources(current).map((s) => ({ ...s, ...fields })));
    }
    return current;
  };
  index();
  const deps: HubDeps = {
    index,
    health: parts.health,
    objects: parts.objects,
    missing: parts.missing,
    accounts: parts.accounts,
    log: parts.log,
    metrics: parts.metrics ?? noMetrics,
    now: parts.now,
    defer: parts.defer,
    settings: { ...parts.settings, version: HUB_VERSION },
    ...(parts.bucketUploads ? { bucketUploads: parts.bucketUploads } : {}),
  };
  return { hub: createHub(deps, hubRoutes()), deps };
}
