import { describe, expect, it } from 'vitest';
import { BUSY, type UploadSessionStore, type UploadState } from '../buckets/upload-store.js';

/** SYNTHETIC bytes. */
const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 17 + seed) & 0xff);
const ID = ['6f1c2a3b-0d4e-4f50-8a61-72839405a6b7', '0a1b2c3d-4e5f-4a6b-9c7d-8e9f0a1b2c3d'] as const;
const T0 = Date.UTC(2026, 10, 28, 12, 0, 0);

function fresh(uuid: string, touched = T0): UploadState {
  return { uuid, repository: 'hub/buckets/contract', received: 0, reserved: 0, touched };
}

/**
 * The contract every UploadSessionStore passes (docs/decisions/spaces-and-buckets.md "Upload sessions shared by every
 * process"). Call it from the store's own test file.
 */
export function uploadSessionStoreContract(name: string, make: () => Promise<UploadSessionStore> | UploadSessionStore): void {
  describe(`UploadSessionStore contract: ${name}`, () => {
    it('creates a session, lists it, and answers its state', async () => {
      const store = await make();
      await store.create(fresh(ID[0]));
      expect(await store.state(ID[0])).toEqual(fresh(ID[0]));
      expect((await store.list()).map((s) => s.uuid)).toEqual([ID[0]]);
      expect(await store.state(ID[1])).toBeUndefined();
      expect(await store.read(ID[0], 0)).toEqual(new Uint8Array());
    });

    it('writes at the recorded length, records it, and reads back only what was asked', async () => {
      const store = await make();
      await store.create(fresh(ID[0]));
      const b = bytes(1000, 1);
      expect(await store.write(ID[0], 0, b.subarray(0, 600))).toBe(true);
      expect(await store.record({ ...fresh(ID[0]), received: 600, touched: T0 + 1 })).toBe(true);
      expect(await store.write(ID[0], 600, b.subarray(600))).toBe(true);
      expect(await store.record({ ...fresh(ID[0]), received: 1000, touched: T0 + 2 })).toBe(true);
      expect(await store.state(ID[0])).toEqual({ ...fresh(ID[0]), received: 1000, touched: T0 + 2 });
      expect(Array.from((await store.read(ID[0], 1000)) ?? [])).toEqual(Array.from(b));
      expect(Array.from((await store.read(ID[0], 10)) ?? [])).toEqual(Array.from(b.subarray(0, 10)));
      expect(await store.read(ID[0], 1001)).toBeUndefined();
    });

    it('a write at the recorded length replaces bytes written past it and never recorded (a killed writer)', async () => {
      const store = await make();
      await store.create(fresh(ID[0]));
      await store.write(ID[0], 0, bytes(100, 2));
      await store.record({ ...fresh(ID[0]), received: 100 });
      await store.write(ID[0], 100, bytes(500, 3)); // never recorded
      await store.write(ID[0], 100, bytes(50, 4));
      const want = [...bytes(100, 2), ...bytes(50, 4)];
      expect(Array.from((await store.read(ID[0], 150)) ?? [])).toEqual(want);
      expect(await store.read(ID[0], 151)).toBeUndefined();
    });

    it('touch moves only the time; record replaces the state whole', async () => {
      const store = await make();
      await store.create(fresh(ID[0]));
      await store.record({ ...fresh(ID[0]), received: 0, reserved: 70, touched: T0 + 5 });
      await store.touch(ID[0], T0 + 60_000);
      expect(await store.state(ID[0])).toEqual({ ...fresh(ID[0]), reserved: 70, touched: T0 + 60_000 });
    });

    it('a removed session is gone and stays gone: write and record answer false', async () => {
      const store = await make();
      await store.create(fresh(ID[0]));
      await store.create(fresh(ID[1]));
      await store.write(ID[0], 0, bytes(10, 5));
      await store.remove(ID[0]);
      await store.remove(ID[0]);
      expect(await store.state(ID[0])).toBeUndefined();
      expect(await store.write(ID[0], 0, bytes(10, 5))).toBe(false);
      expect(await store.record({ ...fresh(ID[0]), received: 10 })).toBe(false);
      expect(await store.state(ID[0])).toBeUndefined();
      expect((await store.list()).map((s) => s.uuid)).toEqual([ID[1]]);
    });

    it('tryLock answers BUSY while the lock is held, and runs once it is released', async () => {
      const store = await make();
      const inner = await store.tryLock(ID[0], async () => ({
        same: await store.tryLock(ID[0], async () => 'ran'),
        other: await store.tryLock(ID[1], async () => 'ran'),
        bucket: await store.tryLock('bucket-contract', async () => 'ran'),
      }));
      expect(inner).toEqual({ same: BUSY, other: 'ran', bucket: 'ran' });
      expect(await store.tryLock(ID[0], async () => 'after')).toBe('after');
      await expect(store.tryLock(ID[0], async () => Promise.reject(new Error('thrown')))).rejects.toThrow('thrown');
      expect(await store.tryLock(ID[0], async () => 'released after a throw')).toBe('released after a throw');
    });

    it('withLock waits for the holder: the holders run one after another', async () => {
      const store = await make();
      const order: string[] = [];
      const hold = (who: string) =>
        store.withLock('bucket-contract', async () => {
          order.push(`${who} in`);
          await new Promise((r) => setTimeout(r, 20));
          order.push(`${who} out`);
        });
      await Promise.all([hold('a'), hold('b')]);
      expect(order.join(' ')).toMatch(/^(a in a out b in b out|b in b out a in a out)$/);
    });
  });
}
