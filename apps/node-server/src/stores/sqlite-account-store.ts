import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { ACCOUNT_SCHEMA, ACCOUNT_SQL, type AccountRecord, type AccountStore, isoTime, modelKey, type RequestOutcome } from '@hub/account';
import Database from 'better-sqlite3';

/** The file, under the data folder, that holds every account. */
export const ACCOUNTS_FILE = 'accounts.sqlite';

const SCHEMA = ACCOUNT_SCHEMA.map((statement) => `${statement};`).join('\n');

interface AccountRow {
  did: string;
  created: string;
  wallet: string | null;
  publish_interest: string | null;
}

/** A statement bound as D1 binds it: `?N` takes the N-th argument (better-sqlite3 binds `?` in order only). */
interface Numbered<Row> {
  run(...args: unknown[]): Database.RunResult;
  get(...args: unknown[]): Row | undefined;
  all(...args: unknown[]): Row[];
}

function numbered<Row = unknown>(db: Database.Database, sql: string): Numbered<Row> {
  const order: number[] = [];
  const anonymous = sql.replace(/\?(\d+)/g, (_, n: string) => {
    order.push(Number(n) - 1);
    return '?';
  });
  const statement = db.prepare(anonymous);
  const bind = (args: unknown[]) => order.map((i) => args[i]);
  return {
    run: (...args) => statement.run(...bind(args)),
    get: (...args) => statement.get(...bind(args)) as Row | undefined,
    all: (...args) => statement.all(...bind(args)) as Row[],
  };
}

/**
 * Accounts in one SQLite file (WAL) under the data folder. better-sqlite3 is synchronous, so each
 * method runs to completion in one transaction; `request` also relies on the UNIQUE (did, model_key)
 * constraint, so even several processes on the same file record one request once.
 */
export class SqliteAccountStore implements AccountStore {
  readonly db: Database.Database;
  private readonly q;
  private readonly tx;

  constructor(file: string) {
    if (file !== ':memory:') mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = ON');
    this.db.exec(SCHEMA);
    const db = this.db;
    // the one list of statements every SQL backend runs (@hub/account ACCOUNT_SQL)
    const S = ACCOUNT_SQL;
    this.q = {
      account: numbered<AccountRow>(db, S.account),
      insertAccount: numbered(db, S.insertAccount),
      saved: numbered<{ model: string }>(db, S.saved),
      savedHas: numbered(db, S.savedHas),
      savedCount: numbered(db, S.savedCount),
      savedClear: numbered(db, S.savedClear),
      savedInsert: numbered(db, S.savedInsert),
      savedDelete: numbered(db, S.savedDelete),
      requestCount: numbered(db, S.requestCount),
      requestInsert: numbered(db, S.requestInsert),
      requestHas: numbered(db, S.requestHas),
      requested: numbered<{ model: string }>(db, S.requested),
      setWallet: numbered(db, S.setWallet),
      setInterest: numbered(db, S.setInterest),
    };
    const q = this.q;
    this.tx = {
      setSaved: db.transaction((did: string, ids: string[], now: number) => {
        q.insertAccount.run(did, isoTime(now));
        q.savedClear.run(did);
        for (const [i, id] of ids.entries()) q.savedInsert.run(did, modelKey(id), id, i);
      }),
      addSaved: db.transaction((did: string, id: string, max: number, now: number): 'full' | 'ok' => {
        q.insertAccount.run(did, isoTime(now));
        if (q.savedHas.get(did, modelKey(id))) return 'ok';
        const { n, top } = q.savedCount.get(did) as { n: number; top: number | null };
        if (n >= max) return 'full';
        q.savedInsert.run(did, modelKey(id), id, (top ?? -1) + 1);
        return 'ok';
      }),
      request: db.transaction((did: string, id: string, max: number, now: number): RequestOutcome => {
        q.insertAccount.run(did, isoTime(now));
        const key = modelKey(id);
        if (q.requestHas.get(did, key)) return 'exists';
        if ((q.requestCount.get(did) as { n: number }).n >= max) return 'full';
        // The bound and the UNIQUE constraint are the guard (the same statement as D1's); the look-ups only pick the answer.
        return q.requestInsert.get(did, key, id, isoTime(now), max) ? 'created' : 'exists';
      }),
    };
  }

  /** Open (creating when needed) `accounts.sqlite` under a data folder. */
  static open(dataDir: string): SqliteAccountStore {
    return new SqliteAccountStore(path.join(dataDir, ACCOUNTS_FILE));
  }

  private record(did: string): AccountRecord | undefined {
    const row = this.q.account.get(did);
    if (!row) return undefined;
    return {
      did: row.did,
      created: row.created,
      wallet: row.wallet,
      saved: this.q.saved.all(did).map((r) => r.model),
      requests: (this.q.requestCount.get(did) as { n: number }).n,
      publishInterest: row.publish_interest,
    };
  }

  async account(did: string): Promise<AccountRecord | undefined> {
    return this.record(did);
  }

  async ensure(did: string, now: number): Promise<AccountRecord> {
    this.q.insertAccount.run(did, isoTime(now));
    return this.record(did) as AccountRecord;
  }

  async saved(did: string): Promise<string[]> {
    return this.q.saved.all(did).map((r) => r.model);
  }

  async setSaved(did: string, ids: string[], now: number): Promise<string[]> {
    this.tx.setSaved(did, ids, now);
    return this.saved(did);
  }

  async addSaved(did: string, id: string, max: number, now: number): Promise<string[] | 'full'> {
    if (this.tx.addSaved(did, id, max, now) === 'full') return 'full';
    return this.saved(did);
  }

  async removeSaved(did: string, id: string, now: number): Promise<string[]> {
    this.q.insertAccount.run(did, isoTime(now));
    this.q.savedDelete.run(did, modelKey(id));
    return this.saved(did);
  }

  async request(did: string, modelId: string, max: number, now: number): Promise<RequestOutcome> {
    return this.tx.request(did, modelId, max, now);
  }

  async requested(did: string): Promise<string[]> {
    return this.q.requested.all(did).map((r) => r.model);
  }

  async setWallet(did: string, wallet: string | null, now: number): Promise<AccountRecord> {
    this.q.insertAccount.run(did, isoTime(now));
    this.q.setWallet.run(wallet, isoTime(now), did);
    return this.record(did) as AccountRecord;
  }

  async recordPublishInterest(did: string, now: number): Promise<string> {
    this.q.insertAccount.run(did, isoTime(now));
    this.q.setInterest.run(isoTime(now), did);
    return (this.q.account.get(did) as AccountRow).publish_interest as string;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
