/**
 * Account storage: one row per signed-in person (keyed by the DID the identity provider issued the
 * token for), their saved list, their model requests and a recorded interest in publishing.
 *
 * Every backend (memory here; SQLite in apps/node-server; D1 in apps/edge) passes the contract
 * suite in `@hub/account/testing`.
 */

/** What `GET /api/account/me` shows (spec: Account resources, Account). */
export interface AccountRecord {
  did: string;
  /** ISO 8601: when the account was first seen. */
  created: string;
  /** An address the person chose to report; recorded, never trusted. */
  wallet: string | null;
  /** Model ids, in the order they were saved. */
  saved: string[];
  /** How many models this account asked for. */
  requests: number;
  /** ISO 8601: when the person said they want to publish; null when they have not. */
  publishInterest: string | null;
}

/** Outcome of {@link AccountStore.request}. */
export type RequestOutcome = 'created' | 'exists' | 'full';

export interface AccountStore {
  /** The account, or undefined when this DID was never seen. Never writes. */
  account(did: string): Promise<AccountRecord | undefined>;
  /** The account, created (with `now` as `created`) when this DID was never seen. */
  ensure(did: string, now: number): Promise<AccountRecord>;
  /** The saved list ([] for an unknown DID). Never writes. */
  saved(did: string): Promise<string[]>;
  /** Replace the whole saved list (already validated, deduplicated and bounded by the caller). */
  setSaved(did: string, ids: string[], now: number): Promise<string[]>;
  /**
   * Add one id at the end (no-op when an id equal ignoring case is there). Returns the list, or
   * `'full'` when the list already holds `max` ids and the id is not among them.
   */
  addSaved(did: string, id: string, max: number, now: number): Promise<string[] | 'full'>;
  /** Remove one id (compared ignoring case); no-op when absent. Returns the list. */
  removeSaved(did: string, id: string, now: number): Promise<string[]>;
  /**
   * Record that this account asks for `modelId` to be indexed. Atomic: of any number of concurrent
   * calls for the same (did, model ignoring case) exactly one answers `'created'`, the rest `'exists'`.
   * `'full'` when the account already holds `max` requests.
   */
  request(did: string, modelId: string, max: number, now: number): Promise<RequestOutcome>;
  /** The models this account asked for, oldest first. */
  requested(did: string): Promise<string[]>;
  /** Record (or clear, with null) the reported wallet. */
  setWallet(did: string, wallet: string | null, now: number): Promise<AccountRecord>;
  /** Record an interest in publishing; a second call keeps the first time. Returns that time. */
  recordPublishInterest(did: string, now: number): Promise<string>;
}

export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** Model ids compare ignoring case (the index looks them up that way). */
export function modelKey(id: string): string {
  return id.toLowerCase();
}

interface MemoryAccount {
  did: string;
  created: string;
  wallet: string | null;
  saved: string[];
  requests: Map<string, { model: string; at: string }>;
  publishInterest: string | null;
}

/** An in-memory {@link AccountStore} for tests and throwaway hubs. */
export class MemoryAccountStore implements AccountStore {
  private readonly accounts = new Map<string, MemoryAccount>();

  private get(did: string): MemoryAccount | undefined {
    return this.accounts.get(did);
  }

  private make(did: string, now: number): MemoryAccount {
    let a = this.accounts.get(did);
    if (!a) {
      a = { did, created: isoTime(now), wallet: null, saved: [], requests: new Map(), publishInterest: null };
      this.accounts.set(did, a);
    }
    return a;
  }

  private view(a: MemoryAccount): AccountRecord {
    return {
      did: a.did,
      created: a.created,
      wallet: a.wallet,
      saved: [...a.saved],
      requests: a.requests.size,
      publishInterest: a.publishInterest,
    };
  }

  async account(did: string): Promise<AccountRecord | undefined> {
    const a = this.get(did);
    return a ? this.view(a) : undefined;
  }

  async ensure(did: string, now: number): Promise<AccountRecord> {
    return this.view(this.make(did, now));
  }

  async saved(did: string): Promise<string[]> {
    return [...(this.get(did)?.saved ?? [])];
  }

  async setSaved(did: string, ids: string[], now: number): Promise<string[]> {
    const a = this.make(did, now);
    a.saved = [...ids];
    return [...a.saved];
  }

  async addSaved(did: string, id: string, max: number, now: number): Promise<string[] | 'full'> {
    const a = this.make(did, now);
    const key = modelKey(id);
    if (a.saved.some((s) => modelKey(s) === key)) return [...a.saved];
    if (a.saved.length >= max) return 'full';
    a.saved.push(id);
    return [...a.saved];
  }

  async removeSaved(did: string, id: string, now: number): Promise<string[]> {
    const a = this.make(did, now);
    const key = modelKey(id);
    a.saved = a.saved.filter((s) => modelKey(s) !== key);
    return [...a.saved];
  }

  async request(did: string, modelId: string, max: number, now: number): Promise<RequestOutcome> {
    // Check and insert run without an await in between, so concurrent calls cannot interleave.
    const a = this.make(did, now);
    const key = modelKey(modelId);
    if (a.requests.has(key)) return 'exists';
    if (a.requests.size >= max) return 'full';
    a.requests.set(key, { model: modelId, at: isoTime(now) });
    return 'created';
  }

  async requested(did: string): Promise<string[]> {
    return [...(this.get(did)?.requests.values() ?? [])].map((r) => r.model);
  }

  async setWallet(did: string, wallet: string | null, now: number): Promise<AccountRecord> {
    const a = this.make(did, now);
    a.wallet = wallet;
    return this.view(a);
  }

  async recordPublishInterest(did: string, now: number): Promise<string> {
    const a = this.make(did, now);
    a.publishInterest ??= isoTime(now);
    return a.publishInterest;
  }
}
