import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type Address, type IndexStore, type LoadPackStorage, type LoadPackWriter, type Logger, loadIndex } from '@hub/core-index';
import { indexStoreKind, PAGED_FROM_MODELS } from '@hub/hub';
import { type FsObjectStore, writeFileAtomic } from '@hub/objects/node';

import { VERIFIED_REF } from './verify-store.js';

export {
  dayPagesFaults,
  VERIFIED_REF,
  type VerifyOptions,
  type VerifyProgress,
  type VerifyReport,
  verifyStore,
} from './verify-store.js';

/** The load pack's file in the data folder: replaced whole on each new index (never an object of the store). */
export const LOAD_PACK_FILE = 'load-pack';

/**
 * The load pack's digest here: SHA-256 by node:crypto (about 0.1 s for the 157 MB pack of 100,000 models on an idle
 * core, against about 1 s for blake3-wasm's first pass over 97 MB). The pack is local start state, never a hub
 * object, so it need not carry a hub address; the digest only has to refuse a damaged, truncated or hand-edited pack.
 * Hashed in steps of {@link DIGEST_STEP} bytes with a turn of the event loop between them, so a hub that switches to
 * a new day keeps answering while it checks the new pack.
 */
export async function packDigest(bytes: Uint8Array): Promise<string> {
  const hash = createHash('sha256');
  for (let at = 0; at < bytes.length; at += DIGEST_STEP) {
    if (at > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    hash.update(bytes.subarray(at, at + DIGEST_STEP));
  }
  return `sha256:${hash.digest('hex')}`;
}

/** Bytes hashed between two turns of the event loop (about 6 ms of SHA-256 on an idle core). */
const DIGEST_STEP = 8 * 1024 * 1024;

/** The load pack as one file, written atomically (a kill mid-write leaves the old pack or none). */
export function fileLoadPack(dataDir: string): LoadPackStorage {
  const file = path.join(dataDir, LOAD_PACK_FILE);
  return {
    digest: packDigest,
    read: () =>
      readFile(file).then(
        (b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength),
        () => undefined,
      ),
    write: (bytes) => writeFileAtomic(file, bytes),
  };
}

/**
 * Load `address`, verifying it in full unless it is the catalog already verified (then recorded as verified). With
 * `pack` (the data folder's {@link fileLoadPack}), a start on the verified catalog reads one prepared pack.
 */
export async function loadVerifiedOnce(store: FsObjectStore, address: Address, pack?: LoadPackStorage): Promise<IndexStore> {
  const trusted = (await store.readRef(VERIFIED_REF)) === address;
  const index = await loadIndex(store, address, { verified: trusted, ...(pack ? { pack } : {}) });
  if (!trusted) await store.writeRef(VERIFIED_REF, address);
  return index;
}

/**
 * Write what a start needs for `catalog` in this data folder (the load pack and the {@link VERIFIED_REF}), so the
 * first start after a build or an import is as fast as a later one. Call it after the catalog and every object it
 * names are in the store.
 * - `built`: the builder's own objects (a {@link LoadPackWriter} filled through `buildIndex`'s `onObject`), hashed and
 *   schema-checked as they were made: written as the pack with no read of the store ('built'). One that failed its
 *   schema check writes nothing ('fault'): the next start then verifies in full and refuses the index, as before.
 * - no `built` (objects that came from elsewhere, such as an imported bundle): every object is re-hashed and
 *   schema-checked once now, as a first start would, and the pack written from them ('verified'); a fault throws
 *   `IndexLoadError` and records nothing.
 * A damaged or foreign pack still means a full check at the next start (`loadIndex`).
 */
export async function writeLoadPack(
  store: FsObjectStore,
  dataDir: string,
  catalog: Address,
  built?: LoadPackWriter,
): Promise<{ pack: 'built' | 'verified' | 'fault' | 'skipped'; fault?: string }> {
  if (!built) {
    if ((await store.readRef(VERIFIED_REF)) === catalog) await store.writeRef(VERIFIED_REF, 'none');
    await loadVerifiedOnce(store, catalog, fileLoadPack(dataDir));
    return { pack: 'verified' };
  }
  if (built.fault) return { pack: 'fault', fault: built.fault };
  if (built.skipped) return { pack: 'skipped' };
  // The pack first, then the ref: a crash between the two leaves a pack the next start verifies before trusting.
  const pack = fileLoadPack(dataDir);
  await pack.write(await built.bytes(store, catalog, pack.digest));
  await store.writeRef(VERIFIED_REF, catalog);
  return { pack: 'built' };
}

/**
 * The most models a build keeps for the load pack, by the store the hub serves with (`indexStore`): every model for
 * `memory`, none for `paged`, and for `auto` (the default) fewer than {@link PAGED_FROM_MODELS}, from which a day is
 * served from its pages.
 */
export function loadPackLimit(indexStore: string | undefined): number {
  const kind = indexStoreKind(indexStore, 'indexStore (or HUB_INDEX_STORE)');
  return kind === 'memory' ? Number.POSITIVE_INFINITY : kind === 'paged' ? 0 : PAGED_FROM_MODELS - 1;
}

/** {@link writeLoadPack} after a build, logged and never thrown (a pack that could not be made only costs the next start a full check). */
export async function writeLoadPackAfterBuild(store: FsObjectStore, dataDir: string, catalog: Address, pack: LoadPackWriter, log?: Logger) {
  try {
    const r = await writeLoadPack(store, dataDir, catalog, pack);
    if (r.fault) log?.warn({ event: 'load-pack', catalog, fault: r.fault }, 'no load pack: the next start verifies every object');
    else if (r.pack === 'skipped')
      log?.info({ event: 'load-pack', catalog, reason: pack.skipped }, 'no load pack: the day is served from its pages');
    else log?.info({ event: 'load-pack', catalog, models: pack.models.size }, 'load pack written for the next start');
  } catch (e) {
    log?.warn({ event: 'load-pack', catalog, err: String(e).slice(0, 300) }, 'no load pack: the next start verifies every object');
  }
}
