import { buildWithPages, syntheticModels } from '@hub/core-index/testing';
import { cacheUse } from '@hub/hub';
import { tempDirs } from '@hub/node-toolkit/testing';
import { FsObjectStore } from '@hub/objects/node';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { type RunningHub, startServer } from '../src/server.js';
import { checkConfig } from '../src/settings-check.js';

/**
 * One bound on every cache of a `hub serve` process (`cacheMegabytes` / HUB_CACHE_MB; core-index cacheBudget): the
 * paged store's pages and models, the kept answers, the object store's objects and the model-host dialect's rows
 * together. Asked over HTTP for more than each share holds, each holds something and all stay within the total.
 * SYNTHETIC index of 60 models, served from its pages.
 */

const tmp = tempDirs(afterAll);
const quiet = createLogger({ level: 'silent' });
const started: RunningHub[] = [];
afterAll(async () => {
  for (const h of started) await h.close();
});

describe('the cache budget of hub serve', () => {
  it('every cache together stays within cacheMegabytes, each holding its share', async () => {
    const dataDir = await tmp('cache-budget-');
    const models = syntheticModels(60);
    await buildWithPages(new FsObjectStore(dataDir), models);
    const megabytes = 0.125;
    const hub = await startServer({
      dataDir,
      port: 0,
      host: '127.0.0.1',
      logger: quiet,
      config: { demo: false, indexStore: 'paged', cacheMegabytes: megabytes },
    });
    started.push(hub);
    const catalog = (await (await fetch(`${hub.url}/api/v1/objects/${await new FsObjectStore(dataDir).readRef('current')}`)).json()) as {
      objects: Record<string, { model: string; sources: string[] }>;
    };
    const addresses = Object.values(catalog.objects).flatMap((o) => [o.model, ...o.sources]);
    for (let round = 0; round < 2; round++) {
      for (const m of models) expect((await fetch(`${hub.url}/api/models/${m.id}`)).status).toBe(200);
      for (const a of addresses) expect((await fetch(`${hub.url}/api/v1/objects/${a}`)).status).toBe(200);
      for (const sort of ['downloads', 'likes'])
        expect((await fetch(`${hub.url}/api/models?full=true&limit=60&sort=${sort}`)).status).toBe(200);
    }
    const use = cacheUse(hub.hub, hub.deps);
    const total = megabytes * 2 ** 20;
    expect(use.total).toBeLessThanOrEqual(total);
    for (const [part, share] of [
      ['index', 1 / 2],
      ['answers', 1 / 5],
      ['objects', 1 / 5],
      ['rows', 1 / 10],
    ] as const) {
      expect(use[part], part).toBeGreaterThan(0);
      expect(use[part], part).toBeLessThanOrEqual(total * share);
    }
  }, 120_000);

  it('reads HUB_CACHE_MB over the config file, and refuses a total that is not a positive number', () => {
    expect(resolveConfig({}, { HUB_CACHE_MB: '64' }, { cacheMegabytes: 32 }).cacheMegabytes).toBe(64);
    expect(resolveConfig({}, {}, { cacheMegabytes: 32 }).cacheMegabytes).toBe(32);
    expect(resolveConfig({}, {}, {}).cacheMegabytes).toBeUndefined();
    expect(() => resolveConfig({}, { HUB_CACHE_MB: 'lots' }, {})).toThrow(ConfigError);
    expect(() => resolveConfig({}, { HUB_CACHE_MB: '-5' }, {})).toThrow(/HUB_CACHE_MB must be a positive number/);
    expect(() => checkConfig({ cacheMegabytes: 0 })).toThrow(/cacheMegabytes must be a positive number/);
  });
});

describe('one check of every config value, for the commands and for startServer alike', () => {
  // Before, these were checked only where the CLI read its config (resolveConfig): a host embedding the hub through
  // startServer started with a lease of a week, a write limit of "lots" and an index store named "fast".
  it('startServer refuses what the commands refuse, each with one ConfigError naming its key', async () => {
    const dataDir = await tmp('config-once-');
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ leaseSeconds: 7 * 24 * 3600 }, /^config: leaseSeconds must be a number of seconds from 0\.1 to 3600/],
      [{ account: { publicKey: 'k', writes: { burst: 'lots' } } }, /^config: account\.writes must be \{"burst": N, "perSecond": N\}/],
      [{ indexStore: 'fast' }, /^config: indexStore must be one of auto, memory, paged \(got "fast"\)/],
      [{ indexStore: ' ' }, /^config: indexStore must be one of auto, memory, paged/],
      [{ database: 'mysql://hub:secret-pw@db/hub' }, /^config: database must be a PostgreSQL URL/],
      [{ policy: { refuseScanLevels: 'unsafe' } }, /^policy\.refuseScanLevels must be a list of scan levels/],
    ];
    for (const [config, message] of cases) {
      const start = startServer({ dataDir, port: 0, host: '127.0.0.1', logger: quiet, config: config as never });
      await expect(start).rejects.toThrow(ConfigError);
      await expect(start).rejects.toThrow(message);
      await expect(start).rejects.not.toThrow(/secret-pw/);
    }
  });
});
