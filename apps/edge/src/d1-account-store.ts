import {
  ACCOUNT_SCHEMA,
  type AccountRecord,
  type AccountStore,
  isoTime,
  modelKey,
  type RequestOutcome,
  ACCOUNT_SQL as SQL,
} from '@hub/account';
import type { D1DatabaseLike, D1ResultLike, D1StatementLike } from './bindings.js';

interface AccountRow {
  did: string;
  created: string;
  wallet: string | null;
  publish_interest: string | null;
}

/**
 * Accounts in Cloudflare D1 (SQLite), the edge's {@link AccountStore}. Each method is one
 * `db.batch` (atomic in D1) whose statements read back what the caller needs, so no method
 * relies on an interactive transaction. The tables are created once per isolate when missing.
 */
export class D1AccountStore implements AccountStore {
  private schema: Promise<void> | undefined;

  constructor(private readonly db: D1DatabaseLike) {}

  /** Create the tables when missing (idempotent; migrations/ holds the same schema for `wrangler d1 migrations`). */
  ensureSchema(): Promise<void> {
    this.schema ??= this.db
      .batch(ACCOUNT_SCHEMA.map((s) => this.db.prepare(s)))
      .then(() => undefined)
      .catch((e: unknown) => {
        this.schema = undefined;
        throw e;
      });
    return this.schema;
  }

  private q(sql: string, ...values: unknown[]): D1StatementLike {
    return this.db.prepare(sql).bind(...values);
  }

  private async batch(statements: D1StatementLike[]): Promise<D1ResultLike<any>[]> {
    await this.ensureSchema();
    return this.db.batch(statements);
  }

  /** The three reads that make an AccountRecord, to append to a batch. */
  private reads(did: string): D1StatementLike[] {
    return [this.q(SQL.account, did), this.q(SQL.saved, did), this.q(SQL.requestCount, did)];
  }

  private record(results: D1ResultLike<any>[]): AccountRecord | undefined {
    const [acc, saved, count] = results.slice(-3) as [
      D1ResultLike<AccountRow>,
      D1ResultLike<{ model: string }>,
      D1ResultLike<{ n: number }>,
    ];
    const row = acc.results[0];
    if (!row) return undefined;
    return {
      did: row.did,
      created: row.created,
      wallet: row.wallet,
      saved: saved.results.map((r) => r.model),
      requests: Number(count.results[0]?.n ?? 0),
      publishInterest: row.publish_interest,
    };
  }

  async account(did: string): Promise<AccountRecord | undefined> {
    return this.record(await this.batch(this.reads(did)));
  }

  async ensure(did: string, now: number): Promise<AccountRecord> {
    return this.record(await this.batch([this.q(SQL.insertAccount, did, isoTime(now)), ...this.reads(did)])) as AccountRecord;
  }

  async saved(did: string): Promise<string[]> {
    const [r] = await this.batch([this.q(SQL.saved, did)]);
    return (r?.results ?? []).map((x: { model: string }) => x.model);
  }

  async setSaved(did: string, ids: string[], now: number): Promise<string[]> {
    const pairs = JSON.stringify(ids.map((id) => [modelKey(id), id]));
    const out = await this.batch([
      this.q(SQL.insertAccount, did, isoTime(now)),
      this.q(SQL.savedClear, did),
      this.q(SQL.savedInsertAll, did, pairs),
      this.q(SQL.saved, did),
    ]);
    return (out[3]?.results ?? []).map((x: { model: string }) => x.model);
  }

  async addSaved(did: string, id: string, max: number, now: number): Promise<string[] | 'full'> {
    const key = modelKey(id);
    const out = await this.batch([
      this.q(SQL.insertAccount, did, isoTime(now)),
      this.q(SQL.savedAdd, did, key, id, max),
      this.q(SQL.savedHas, did, key),
      this.q(SQL.saved, did),
    ]);
    if ((out[2]?.results.length ?? 0) === 0) return 'full';
    return (out[3]?.results ?? []).map((x: { model: string }) => x.model);
  }

  async removeSaved(did: string, id: string, now: number): Promise<string[]> {
    const out = await this.batch([
      this.q(SQL.insertAccount, did, isoTime(now)),
      this.q(SQL.savedDelete, did, modelKey(id)),
      this.q(SQL.saved, did),
    ]);
    return (out[2]?.results ?? []).map((x: { model: string }) => x.model);
  }

  async request(did: string, modelId: string, max: number, now: number): Promise<RequestOutcome> {
    const key = modelKey(modelId);
    const out = await this.batch([
      this.q(SQL.insertAccount, did, isoTime(now)),
      this.q(SQL.requestInsert, did, key, modelId, isoTime(now), max),
      this.q(SQL.requestHas, did, key),
    ]);
    if ((out[1]?.results.length ?? 0) > 0) return 'created';
    return (out[2]?.results.length ?? 0) > 0 ? 'exists' : 'full';
  }

  async requested(did: string): Promise<string[]> {
    const [r] = await this.batch([this.q(SQL.requested, did)]);
    return (r?.results ?? []).map((x: { model: string }) => x.model);
  }

  async setWallet(did: string, wallet: string | null, now: number): Promise<AccountRecord> {
    const out = await this.batch([
      this.q(SQL.insertAccount, did, isoTime(now)),
      this.q(SQL.setWallet, wallet, isoTime(now), did),
      ...this.reads(did),
    ]);
    return this.record(out) as AccountRecord;
  }

  async recordPublishInterest(did: string, now: number): Promise<string> {
    const out = await this.batch([
      this.q(SQL.insertAccount, did, isoTime(now)),
      this.q(SQL.setInterest, isoTime(now), did),
      this.q(SQL.account, did),
    ]);
    const row = out[2]?.results[0] as AccountRow | undefined;
    return row?.publish_interest as string;
  }
}
