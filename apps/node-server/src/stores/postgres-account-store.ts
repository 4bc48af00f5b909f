import {
  type AccountRecord,
  type AccountStore,
  DEFAULT_WRITE_BURST,
  DEFAULT_WRITES_PER_SECOND,
  isoTime,
  modelKey,
  type RateLimiter,
  type RequestOutcome,
  type TakeResult,
  type TokenBucketOptions,
} from '@hub/account';
import type { Logger } from '@hub/core-index';
import pg from 'pg';

/**
 * Accounts in PostgreSQL (issue 41): what several `hub serve` processes behind one balancer share. The tables are
 * those of the SQLite and D1 stores (`@hub/account` ACCOUNT_SCHEMA) in PostgreSQL's dialect, plus the write buckets
 * of {@link PostgresWriteLimiter}. Each write that checks a bound first locks the account's row (`SELECT … FOR
 * UPDATE`), so writes to one account are serial across every process, and the UNIQUE constraints pick the winner
 * of a race.
 */

/**
 * Schema versions, applied in order, each once, in one transaction under an advisory lock: any number of processes
 * may start at once, one migrates and the others find the work done. Never edit a shipped step; add one.
 */
export const POSTGRES_MIGRATIONS: readonly (readonly string[])[] = [
  [
    'CREATE TABLE accounts (did TEXT PRIMARY KEY, created TEXT NOT NULL, wallet TEXT, wallet_updated TEXT, publish_interest TEXT)',
    'CREATE TABLE saved (did TEXT NOT NULL REFERENCES accounts(did), model_key TEXT NOT NULL, model TEXT NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (did, model_key))',
    'CREATE INDEX saved_order ON saved (did, position)',
    'CREATE TABLE requests (id BIGSERIAL PRIMARY KEY, did TEXT NOT NULL REFERENCES accounts(did), model_key TEXT NOT NULL, model TEXT NOT NULL, created TEXT NOT NULL, UNIQUE (did, model_key))',
    'CREATE INDEX requests_model ON requests (model_key)',
    'CREATE TABLE write_buckets (key TEXT PRIMARY KEY, tokens DOUBLE PRECISION NOT NULL, at BIGINT NOT NULL)',
  ],
];

/** The advisory lock key the migrations run under (any fixed 64-bit number; this one spells "hubacct"). */
const MIGRATION_LOCK = 0x687562616363_74n;

const SQL = {
  account: 'SELECT did, created, wallet, publish_interest FROM accounts WHERE did = $1',
  lockAccount: 'SELECT 1 FROM accounts WHERE did = $1 FOR UPDATE',
  insertAccount: 'INSERT INTO accounts (did, created) VALUES ($1, $2) ON CONFLICT (did) DO NOTHING',
  saved: 'SELECT model FROM saved WHERE did = $1 ORDER BY position',
  savedHas: 'SELECT 1 FROM saved WHERE did = $1 AND model_key = $2',
  savedCount: 'SELECT COUNT(*)::int AS n, MAX(position) AS top FROM saved WHERE did = $1',
  savedClear: 'DELETE FROM saved WHERE did = $1',
  savedInsertAll:
    'INSERT INTO saved (did, model_key, model, position) SELECT $1, k, m, (p - 1)::int FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(k, m, p) ON CONFLICT (did, model_key) DO NOTHING',
  savedInsert: 'INSERT INTO saved (did, model_key, model, position) VALUES ($1, $2, $3, $4) ON CONFLICT (did, model_key) DO NOTHING',
  savedDelete: 'DELETE FROM saved WHERE did = $1 AND model_key = $2',
  requestCount: 'SELECT COUNT(*)::int AS n FROM requests WHERE did = $1',
  requestHas: 'SELECT 1 FROM requests WHERE did = $1 AND model_key = $2',
  requestInsert:
    'INSERT INTO requests (did, model_key, model, created) VALUES ($1, $2, $3, $4) ON CONFLICT (did, model_key) DO NOTHING RETURNING id',
  requested: 'SELECT model FROM requests WHERE did = $1 ORDER BY id',
  setWallet: 'UPDATE accounts SET wallet = $1, wallet_updated = $2 WHERE did = $3',
  setInterest: 'UPDATE accounts SET publish_interest = COALESCE(publish_interest, $1) WHERE did = $2 RETURNING publish_interest',
} as const;

interface AccountRow {
  did: string;
  created: string;
  wallet: string | null;
  publish_interest: string | null;
}

type Querier = Pick<pg.PoolClient, 'query'>;

/** The URL with its password replaced, for a log line or an error message. */
export function redactDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const k of [...u.searchParams.keys()]) if (/pass/i.test(k)) u.searchParams.set(k, '***');
    return u.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/** Run the migrations not yet applied (see {@link POSTGRES_MIGRATIONS}). Safe from several processes at once. */
export async function migrate(pool: pg.Pool): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // One migrator at a time across every process; the lock ends with the transaction (or the connection).
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK.toString()]);
    await client.query('CREATE TABLE IF NOT EXISTS hub_schema (version INTEGER PRIMARY KEY, applied TEXT NOT NULL)');
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM hub_schema')).rows.map((r) => r.version));
    let applied = 0;
    for (const [i, steps] of POSTGRES_MIGRATIONS.entries()) {
      if (done.has(i + 1)) continue;
      for (const statement of steps) await client.query(statement);
      await client.query('INSERT INTO hub_schema (version, applied) VALUES ($1, $2)', [i + 1, new Date().toISOString()]);
      applied++;
    }
    await client.query('COMMIT');
    return applied;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

export interface PostgresOptions {
  /** Connections the pool holds at most (default 10). */
  max?: number;
  log?: Logger;
}

/** A pool on `url`, its errors logged without the URL (which may hold the password). */
export function openPool(url: string, options: PostgresOptions = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 30_000 });
  // An idle connection the server drops is an 'error' on the pool; without a listener it would end the process.
  pool.on('error', (e) => options.log?.warn({ err: e.message }, 'PostgreSQL connection lost; the pool opens another'));
  return pool;
}

/** The {@link AccountStore} on PostgreSQL. */
export class PostgresAccountStore implements AccountStore {
  private constructor(readonly pool: pg.Pool) {}

  /** Open a pool on `url` and bring the schema up to date. */
  static async open(url: string, options: PostgresOptions = {}): Promise<PostgresAccountStore> {
    const pool = openPool(url, options);
    try {
      const applied = await migrate(pool);
      options.log?.info({ database: redactDatabaseUrl(url), migrations: applied }, 'accounts in PostgreSQL');
    } catch (e) {
      await pool.end().catch(() => {});
      throw e;
    }
    return new PostgresAccountStore(pool);
  }

  /** Run `fn` in one transaction on one connection. */
  private async tx<T>(fn: (c: Querier) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const out = await fn(client);
      await client.query('COMMIT');
      return out;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      client.release();
    }
  }

  /** Create the account when missing and hold its row until the transaction ends: one writer per account. */
  private async lock(c: Querier, did: string, now: number): Promise<void> {
    await c.query(SQL.insertAccount, [did, isoTime(now)]);
    await c.query(SQL.lockAccount, [did]);
  }

  private async record(c: Querier, did: string): Promise<AccountRecord | undefined> {
    const row = (await c.query<AccountRow>(SQL.account, [did])).rows[0];
    if (!row) return undefined;
    return {
      did: row.did,
      created: row.created,
      wallet: row.wallet,
      saved: await this.savedOn(c, did),
      requests: (await c.query<{ n: number }>(SQL.requestCount, [did])).rows[0]?.n ?? 0,
      publishInterest: row.publish_interest,
    };
  }

  private async savedOn(c: Querier, did: string): Promise<string[]> {
    return (await c.query<{ model: string }>(SQL.saved, [did])).rows.map((r) => r.model);
  }

  account(did: string): Promise<AccountRecord | undefined> {
    return this.tx((c) => this.record(c, did));
  }

  async ensure(did: string, now: number): Promise<AccountRecord> {
    await this.pool.query(SQL.insertAccount, [did, isoTime(now)]);
    return (await this.account(did)) as AccountRecord;
  }

  saved(did: string): Promise<string[]> {
    return this.savedOn(this.pool, did);
  }

  setSaved(did: string, ids: string[], now: number): Promise<string[]> {
    return this.tx(async (c) => {
      await this.lock(c, did, now);
      await c.query(SQL.savedClear, [did]);
      await c.query(SQL.savedInsertAll, [did, ids.map(modelKey), ids]);
      return this.savedOn(c, did);
    });
  }

  addSaved(did: string, id: string, max: number, now: number): Promise<string[] | 'full'> {
    return this.tx(async (c) => {
      await this.lock(c, did, now);
      if ((await c.query(SQL.savedHas, [did, modelKey(id)])).rowCount) return this.savedOn(c, did);
      const { n, top } = (await c.query<{ n: number; top: number | null }>(SQL.savedCount, [did])).rows[0] ?? { n: 0, top: null };
      if (n >= max) return 'full';
      await c.query(SQL.savedInsert, [did, modelKey(id), id, (top ?? -1) + 1]);
      return this.savedOn(c, did);
    });
  }

  removeSaved(did: string, id: string, now: number): Promise<string[]> {
    return this.tx(async (c) => {
      await this.lock(c, did, now);
      await c.query(SQL.savedDelete, [did, modelKey(id)]);
      return this.savedOn(c, did);
    });
  }

  request(did: string, modelId: string, max: number, now: number): Promise<RequestOutcome> {
    return this.tx(async (c) => {
      await this.lock(c, did, now);
      const key = modelKey(modelId);
      if ((await c.query(SQL.requestHas, [did, key])).rowCount) return 'exists';
      if (((await c.query<{ n: number }>(SQL.requestCount, [did])).rows[0]?.n ?? 0) >= max) return 'full';
      // The row lock makes the look-ups exact; the UNIQUE constraint stays the last guard.
      return (await c.query(SQL.requestInsert, [did, key, modelId, isoTime(now)])).rowCount ? 'created' : 'exists';
    });
  }

  async requested(did: string): Promise<string[]> {
    return (await this.pool.query<{ model: string }>(SQL.requested, [did])).rows.map((r) => r.model);
  }

  setWallet(did: string, wallet: string | null, now: number): Promise<AccountRecord> {
    return this.tx(async (c) => {
      await this.lock(c, did, now);
      await c.query(SQL.setWallet, [wallet, isoTime(now), did]);
      return (await this.record(c, did)) as AccountRecord;
    });
  }

  async recordPublishInterest(did: string, now: number): Promise<string> {
    await this.pool.query(SQL.insertAccount, [did, isoTime(now)]);
    const r = await this.pool.query<{ publish_interest: string }>(SQL.setInterest, [isoTime(now), did]);
    return r.rows[0]?.publish_interest as string;
  }

  /** The per-account write limit, counted in this database (so across every process that uses it). */
  writeLimiter(options: TokenBucketOptions = {}): PostgresWriteLimiter {
    return new PostgresWriteLimiter(this.pool, options);
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/**
 * The token bucket of `@hub/account`'s TokenBucketLimiter, one row per key in `write_buckets`: each take is one
 * upsert that refills, checks and takes under the row's lock, so two processes never both spend the last token.
 */
export class PostgresWriteLimiter implements RateLimiter {
  readonly burst: number;
  readonly perSecond: number;

  constructor(
    private readonly pool: pg.Pool,
    options: TokenBucketOptions = {},
  ) {
    this.burst = Math.max(1, options.burst ?? DEFAULT_WRITE_BURST);
    this.perSecond = options.perSecond ?? DEFAULT_WRITES_PER_SECOND;
    if (!(this.perSecond > 0)) throw new Error('perSecond must be above 0');
  }

  async take(key: string, now: number): Promise<TakeResult> {
    const refill = 'LEAST($2::float8, write_buckets.tokens + GREATEST(0, $3::bigint - write_buckets.at) / 1000.0 * $4::float8)';
    const taken = await this.pool.query<{ tokens: number }>(
      `INSERT INTO write_buckets (key, tokens, at) VALUES ($1, $2::float8 - 1, $3) ON CONFLICT (key) DO UPDATE SET tokens = ${refill} - 1, at = GREATEST(write_buckets.at, $3::bigint) WHERE ${refill} >= 1 RETURNING tokens`,
      [key, this.burst, Math.round(now), this.perSecond],
    );
    const row = taken.rows[0];
    if (row) return { ok: true, remaining: Math.floor(row.tokens) };
    const held = await this.pool.query<{ tokens: number }>(`SELECT ${refill} AS tokens FROM write_buckets WHERE key = $1`, [
      key,
      this.burst,
      Math.round(now),
      this.perSecond,
    ]);
    const tokens = held.rows[0]?.tokens ?? 0;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / this.perSecond)) };
  }
}
