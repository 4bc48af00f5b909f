import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { accountStoreContract } from '@hub/account/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteAccountStore } from './sqlite-account-store.js';

const dirs: string[] = [];
const stores: SqliteAccountStore[] = [];
function freshDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'hub-accounts-'));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const s of stores) s.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

accountStoreContract('sqlite', () => {
  const s = SqliteAccountStore.open(freshDir());
  stores.push(s);
  return s;
});

const T0 = Date.UTC(2026, 10, 22);

describe('SqliteAccountStore', () => {
  it('uses WAL and keeps everything across a reopen of the same file', async () => {
    const dir = freshDir();
    const a = SqliteAccountStore.open(dir);
    expect(a.db.pragma('journal_mode', { simple: true })).toBe('wal');
    await a.ensure('did:plc:keep', T0);
    await a.setSaved('did:plc:keep', ['x/one', 'y/two'], T0);
    await a.request('did:plc:keep', 'z/three', 1000, T0);
    await a.setWallet('did:plc:keep', '0xabc', T0);
    await a.recordPublishInterest('did:plc:keep', T0);
    a.close();
    const b = SqliteAccountStore.open(dir);
    stores.push(b);
    expect(await b.account('did:plc:keep')).toEqual({
      did: 'did:plc:keep',
      created: new Date(T0).toISOString(),
      wallet: '0xabc',
      saved: ['x/one', 'y/two'],
      requests: 1,
      publishInterest: new Date(T0).toISOString(),
    });
    expect(await b.request('did:plc:keep', 'Z/THREE', 1000, T0)).toBe('exists');
  });

  it('records a request once even through two connections to the same file', async () => {
    const dir = freshDir();
    const a = SqliteAccountStore.open(dir);
    const b = SqliteAccountStore.open(dir);
    stores.push(a, b);
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).request('did:plc:two-conns', 'race/model', 1000, T0)),
    );
    expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'exists')).toHaveLength(49);
    // The database itself refuses a duplicate row.
    expect(() =>
      a.db
        .prepare('INSERT INTO requests (did, model_key, model, created) VALUES (?, ?, ?, ?)')
        .run('did:plc:two-conns', 'race/model', 'race/model', 'x'),
    ).toThrow(/UNIQUE/);
  });
});
