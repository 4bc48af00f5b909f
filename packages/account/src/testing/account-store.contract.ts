import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../store.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

/**
 * The contract every AccountStore backend passes (memory, SQLite; D1 later). Call it from the
 * backend's own test file. `make` must return an empty store each time.
 */
export function accountStoreContract(name: string, make: () => Promise<AccountStore> | AccountStore): void {
  describe(`AccountStore contract: ${name}`, () => {
    it('knows no account until ensure, and ensure keeps the first created time', async () => {
      const s = await make();
      expect(await s.account('did:plc:alice')).toBeUndefined();
      expect(await s.saved('did:plc:alice')).toEqual([]);
      expect(await s.requested('did:plc:alice')).toEqual([]);
      expect(await s.account('did:plc:alice')).toBeUndefined();
      const a = await s.ensure('did:plc:alice', T0);
      expect(a).toEqual({
        did: 'did:plc:alice',
        created: new Date(T0).toISOString(),
        wallet: null,
        saved: [],
        requests: 0,
        publishInterest: null,
      });
      const again = await s.ensure('did:plc:alice', T0 + 60_000);
      expect(again.created).toBe(new Date(T0).toISOString());
    });

    it('replaces, adds and removes saved ids, keeping order and ignoring case for duplicates', async () => {
      const s = await make();
      const did = 'did:plc:saver';
      expect(await s.setSaved(did, ['a/one', 'b/two', 'c/three'], T0)).toEqual(['a/one', 'b/two', 'c/three']);
      expect(await s.addSaved(did, 'd/four', 1000, T0)).toEqual(['a/one', 'b/two', 'c/three', 'd/four']);
      expect(await s.addSaved(did, 'B/TWO', 1000, T0)).toEqual(['a/one', 'b/two', 'c/three', 'd/four']);
      expect(await s.removeSaved(did, 'A/One', T0)).toEqual(['b/two', 'c/three', 'd/four']);
      expect(await s.removeSaved(did, 'not/there', T0)).toEqual(['b/two', 'c/three', 'd/four']);
      expect(await s.setSaved(did, ['z/last', 'y/first'], T0)).toEqual(['z/last', 'y/first']);
      expect(await s.saved(did)).toEqual(['z/last', 'y/first']);
      expect(await s.setSaved(did, [], T0)).toEqual([]);
      expect((await s.account(did))?.saved).toEqual([]);
    });

    it('refuses to grow a saved list past its bound, but re-adding a present id is fine', async () => {
      const s = await make();
      const did = 'did:plc:full';
      await s.setSaved(did, ['a/1', 'a/2', 'a/3'], T0);
      expect(await s.addSaved(did, 'a/4', 3, T0)).toBe('full');
      expect(await s.addSaved(did, 'A/2', 3, T0)).toEqual(['a/1', 'a/2', 'a/3']);
      expect(await s.saved(did)).toEqual(['a/1', 'a/2', 'a/3']);
    });

    it('keeps accounts apart', async () => {
      const s = await make();
      await s.setSaved('did:plc:one', ['a/b'], T0);
      await s.request('did:plc:one', 'x/y', 1000, T0);
      expect(await s.saved('did:plc:two')).toEqual([]);
      expect(await s.request('did:plc:two', 'x/y', 1000, T0)).toBe('created');
      expect((await s.account('did:plc:one'))?.requests).toBe(1);
    });

    it('records a request once per account and model (ignoring case), and counts them', async () => {
      const s = await make();
      const did = 'did:plc:req';
      expect(await s.request(did, 'Org/Model', 1000, T0)).toBe('created');
      expect(await s.request(did, 'org/model', 1000, T0)).toBe('exists');
      expect(await s.request(did, 'org/other', 1000, T0)).toBe('created');
      expect(await s.requested(did)).toEqual(['Org/Model', 'org/other']);
      const a = await s.account(did);
      expect(a?.requests).toBe(2);
      expect(a?.created).toBe(new Date(T0).toISOString());
    });

    it('gives exactly one success among 50 concurrent requests for the same model', async () => {
      const s = await make();
      const did = 'did:plc:racer';
      const outcomes = await Promise.all(Array.from({ length: 50 }, () => s.request(did, 'race/model', 1000, T0)));
      expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'exists')).toHaveLength(49);
      expect((await s.account(did))?.requests).toBe(1);
    });

    it('stops recording requests at the bound', async () => {
      const s = await make();
      const did = 'did:plc:many';
      expect(await s.request(did, 'a/1', 2, T0)).toBe('created');
      expect(await s.request(did, 'a/2', 2, T0)).toBe('created');
      expect(await s.request(did, 'a/3', 2, T0)).toBe('full');
      expect(await s.request(did, 'a/1', 2, T0)).toBe('exists');
      expect((await s.account(did))?.requests).toBe(2);
    });

    it('records and clears a wallet', async () => {
      const s = await make();
      const did = 'did:plc:wallet';
      const a = await s.setWallet(did, '0xAbC123', T0);
      expect(a.wallet).toBe('0xAbC123');
      expect((await s.account(did))?.wallet).toBe('0xAbC123');
      expect((await s.setWallet(did, null, T0)).wallet).toBeNull();
    });

    it('records publish interest once, keeping the first time', async () => {
      const s = await make();
      const did = 'did:plc:publisher';
      expect(await s.recordPublishInterest(did, T0)).toBe(new Date(T0).toISOString());
      expect(await s.recordPublishInterest(did, T0 + 5000)).toBe(new Date(T0).toISOString());
      expect((await s.account(did))?.publishInterest).toBe(new Date(T0).toISOString());
    });

    it('stores DIDs and ids byte for byte (no case folding of DIDs)', async () => {
      const s = await make();
      await s.setSaved('did:web:Example.com', ['Mixed/Case-Name.v2'], T0);
      expect(await s.saved('did:web:example.com')).toEqual([]);
      expect(await s.saved('did:web:Example.com')).toEqual(['Mixed/Case-Name.v2']);
    });
  });
}
