import { accountStoreContract } from '@hub/account/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openPool, PostgresAccountStore, redactDatabaseUrl } from '../src/stores/postgres-account-store.js';
import { postgresBin, startPostgres, type TestPostgres } from './postgres.js';

/**
 * Issue 41: the AccountStore contract on a real PostgreSQL (Debian's postgresql, started here on its own port and
 * data folder), migrations run by many processes' worth of pools at once, and the write limit counted in the
 * database. Skipped only when the PostgreSQL binaries are not installed.
 */
const installed = postgresBin() !== undefined;
const suite = installed ? describe : describe.skip;
const T0 = Date.UTC(2026, 10, 28, 9, 0, 0);

let server: TestPostgres;
const stores: PostgresAccountStore[] = [];

suite(installed ? 'PostgreSQL accounts' : 'PostgreSQL accounts (skipped: /usr/lib/postgresql/*/bin is missing)', () => {
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    for (const s of stores) await s.close().catch(() => {});
    await server?.stop();
  });

  accountStoreContract('postgresql', async () => {
    const s = await PostgresAccountStore.open(await server.freshDatabase());
    stores.push(s);
    return s;
  });

  it('migrates once when eight pools start at the same moment, and again is a no-op', async () => {
    const url = await server.freshDatabase();
    const pools = Array.from({ length: 8 }, () => openPool(url));
    try {
      const applied = await Promise.all(pools.map((p) => migrate(p)));
      expect(applied.reduce((a, b) => a + b, 0)).toBe(1);
      expect(await migrate(pools[0] as NonNullable<(typeof pools)[0]>)).toBe(0);
      const tables = await server.query<{ t: string }>(
        "SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1",
        [],
        url,
      );
      expect(tables.map((r) => r.t)).toEqual(['accounts', 'hub_schema', 'requests', 'saved', 'write_buckets']);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it('records a request once through two stores (two pools) racing 50 ways, and the row is in the database', async () => {
    const url = await server.freshDatabase();
    const [a, b] = [await PostgresAccountStore.open(url), await PostgresAccountStore.open(url)];
    stores.push(a, b);
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).request('did:plc:two', 'race/model', 1000, T0)),
    );
    expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'exists')).toHaveLength(49);
    expect(await server.query('SELECT did, model FROM requests', [], url)).toEqual([{ did: 'did:plc:two', model: 'race/model' }]);
  });

  it('holds the request bound across two stores racing on different models', async () => {
    const url = await server.freshDatabase();
    const [a, b] = [await PostgresAccountStore.open(url), await PostgresAccountStore.open(url)];
    stores.push(a, b);
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).request('did:plc:bound', `m/${i}`, 7, T0)));
    expect(outcomes.filter((o) => o === 'created')).toHaveLength(7);
    expect(outcomes.filter((o) => o === 'full')).toHaveLength(33);
  });

  it('counts the write limit of one account across two stores: a burst of 10 lets exactly 10 of 40 writes through', async () => {
    const url = await server.freshDatabase();
    const [a, b] = [await PostgresAccountStore.open(url), await PostgresAccountStore.open(url)];
    stores.push(a, b);
    const [la, lb] = [a.writeLimiter({ burst: 10, perSecond: 1 }), b.writeLimiter({ burst: 10, perSecond: 1 })];
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? la : lb).take('did:plc:writer', T0)));
    expect(results.filter((r) => r.ok)).toHaveLength(10);
    const refused = results.find((r) => !r.ok);
    expect(refused).toEqual({ ok: false, retryAfterSeconds: 1 });
    // Two seconds later two tokens are back, whichever process asks.
    expect((await la.take('did:plc:writer', T0 + 2000)).ok).toBe(true);
    expect((await lb.take('did:plc:writer', T0 + 2000)).ok).toBe(true);
    expect((await la.take('did:plc:writer', T0 + 2000)).ok).toBe(false);
    // Another account has its own bucket.
    expect((await lb.take('did:plc:other', T0)).ok).toBe(true);
  });

  it('never shows the password: not in the redacted URL, not in the error of a wrong one', async () => {
    expect(redactDatabaseUrl(server.url)).not.toContain(server.password);
    expect(redactDatabaseUrl(server.url)).toContain('***');
    const wrong = server.url.replace(encodeURIComponent(server.password), 'not-the-password-xyz');
    const e = await PostgresAccountStore.open(wrong).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(e?.message).toMatch(/password authentication failed/);
    expect(e?.message).not.toContain('not-the-password-xyz');
  });
});

describe('the database setting', () => {
  it('takes DATABASE_URL over the config file, and refuses a URL that is not PostgreSQL without repeating it', async () => {
    const { resolveConfig } = await import('../src/config.js');
    expect(resolveConfig({}, { DATABASE_URL: 'postgres://hub:pw@db.internal:5432/hub' }).database).toBe(
      'postgres://hub:pw@db.internal:5432/hub',
    );
    expect(resolveConfig({}, {}).database).toBeUndefined();
    expect(() => resolveConfig({}, { DATABASE_URL: 'mysql://hub:secret-pw@db/hub' })).not.toThrow(/secret-pw/);
    expect(() => resolveConfig({}, { DATABASE_URL: 'mysql://hub:secret-pw@db/hub' })).toThrow(
      'DATABASE_URL must be a PostgreSQL URL (postgres://USER:PASSWORD@HOST:5432/DATABASE).',
    );
  });
});

describe('a database that cannot be opened', () => {
  it('stops the start with one line naming it without its password', async () => {
    const { openAccounts } = await import('../src/stores/open-accounts.js');
    const { ConfigError } = await import('../src/config.js');
    const { createLogger } = await import('../src/logger.js');
    const e = await openAccounts(
      { database: 'postgres://hub:do-not-show-this@127.0.0.1:1/hub' },
      '/nonexistent',
      createLogger({ level: 'silent' }),
    ).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(e).toBeInstanceOf(ConfigError);
    expect(e?.message).toMatch(/^Cannot open the accounts database postgres:\/\/hub:\*\*\*@127\.0\.0\.1:1\/hub: .*ECONNREFUSED/);
    expect(e?.message).not.toContain('do-not-show-this');
  });
});

describe('the write limit setting', () => {
  it('refuses a write limit that could not work, naming the key', async () => {
    const { writeFileSync, mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { checkedSettings } = await import('../src/settings-check.js');
    const dir = mkdtempSync(`${tmpdir()}/hub-writes-`);
    try {
      const file = `${dir}/hub.json`;
      writeFileSync(file, JSON.stringify({ account: { publicKey: 'x', writes: { burst: 60, perSecond: 0 } } }));
      expect(() => checkedSettings({ config: file }, {})).toThrow(/: account\.writes must be/);
      writeFileSync(file, JSON.stringify({ account: { publicKey: 'x', writes: { burst: 60, perSecond: 0.01 } } }));
      expect(checkedSettings({ config: file }, {}).account?.writes).toEqual({ burst: 60, perSecond: 0.01 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
