import { addressOf, canonicalBytes, type ObjectStore } from '@hub/core-index';
import { describe, expect, it } from 'vitest';

/** The contract every ObjectStore backend passes. Call it from the backend's own test file. */
export function objectStoreContract(name: string, make: () => Promise<ObjectStore> | ObjectStore): void {
  describe(`ObjectStore contract: ${name}`, () => {
    it('puts bytes under their BLAKE3 address and gets the same bytes back', async () => {
      const store = await make();
      const bytes = canonicalBytes({ hello: 'world', n: 1 });
      const { meta, created } = await store.put(bytes, { kind: 'test.kind', mediaType: 'application/json' });
      expect(created).toBe(true);
      expect(meta.id).toBe(addressOf(bytes));
      expect(meta.size).toBe(bytes.byteLength);
      expect(meta.kind).toBe('test.kind');
      const got = await store.get(meta.id as `blake3:${string}`);
      expect(got && Array.from(got.bytes)).toEqual(Array.from(bytes));
      expect(got?.meta.media_type).toBe('application/json');
      expect(await store.has(meta.id as `blake3:${string}`)).toBe(true);
    });

    it('answers a second put of the same bytes as existing, keeping the first metadata', async () => {
      const store = await make();
      const bytes = new TextEncoder().encode('same bytes');
      const a = await store.put(bytes, { kind: 'first', mediaType: 'text/plain' });
      const b = await store.put(bytes, { kind: 'second', mediaType: 'application/octet-stream' });
      expect(b.created).toBe(false);
      expect(b.meta.kind).toBe('first');
      expect(b.meta.id).toBe(a.meta.id);
    });

    it('reads the bytes whole and by range where the store can (a models page and one model in it)', async () => {
      const store = await make();
      const bytes = canonicalBytes({ models: ['first model', 'second model'], n: 12 });
      const { meta } = await store.put(bytes, { kind: 'test.range', mediaType: 'application/json' });
      const address = meta.id as `blake3:${string}`;
      const absent = `blake3:${'0'.repeat(64)}` as const;
      if (store.readBytes) {
        expect(Array.from((await store.readBytes(address)) ?? [])).toEqual(Array.from(bytes));
        expect(await store.readBytes(absent)).toBeUndefined();
      }
      if (store.readRange) {
        const start = new TextDecoder().decode(bytes).indexOf('second');
        expect(new TextDecoder().decode(await store.readRange(address, start, 12))).toBe('second model');
        expect(Array.from((await store.readRange(address, 0, bytes.length)) ?? [])).toEqual(Array.from(bytes));
        expect(await store.readRange(address, bytes.length - 2, 3)).toBeUndefined();
        expect(await store.readRange(absent, 0, 1)).toBeUndefined();
        expect(await store.readRange('blake3:../../etc/passwd' as `blake3:${string}`, 0, 1)).toBeUndefined();
      }
    });

    it('returns undefined for absent and malformed addresses', async () => {
      const store = await make();
      expect(await store.get(`blake3:${'0'.repeat(64)}`)).toBeUndefined();
      expect(await store.has(`blake3:${'0'.repeat(64)}`)).toBe(false);
      expect(await store.meta(`blake3:${'0'.repeat(64)}`)).toBeUndefined();
    });

    it('lists by kind and prefix with a cursor', async () => {
      const store = await make();
      const addrs: string[] = [];
      for (let i = 0; i < 5; i++) {
        const { meta } = await store.put(new TextEncoder().encode(`item ${i}`), { kind: i % 2 ? 'odd' : 'even', mediaType: 'text/plain' });
        addrs.push(meta.id);
      }
      const even = await store.list({ kind: 'even' });
      expect(even.items.map((m) => m.kind)).toEqual(['even', 'even', 'even']);
      const page1 = await store.list({ limit: 2 });
      expect(page1.items).toHaveLength(2);
      expect(page1.next).not.toBeNull();
      const page2 = await store.list({ limit: 10, cursor: page1.next as string });
      expect([...page1.items, ...page2.items].map((m) => m.id).sort()).toEqual([...addrs].sort());
      const first = addrs[0] as string;
      const byPrefix = await store.list({ prefix: first.slice(7, 15) });
      expect(byPrefix.items.map((m) => m.id)).toContain(first);
    });

    it('keeps refs, and refuses ref names that could escape', async () => {
      const store = await make();
      expect(await store.readRef('current')).toBeUndefined();
      await store.writeRef('current', 'blake3:abc');
      await store.writeRef('current', 'blake3:def');
      expect(await store.readRef('current')).toBe('blake3:def');
      await expect(store.writeRef('../escape', 'x')).rejects.toThrow();
    });
  });
}
