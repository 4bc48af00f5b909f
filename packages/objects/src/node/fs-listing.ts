import { readdirSync } from 'node:fs';
import path from 'node:path';
import { type Address, isAddress, type StoredListing } from '@hub/core-index';

/** An object's bytes file name: its address's 64 hex digits (its metadata and temp files are named otherwise). */
const HEX64 = /^[0-9a-f]{64}$/;

/**
 * The objects of an `objects/` folder as they are now (`ObjectStore.listing`, for FsObjectStore): each fan-out folder
 * read once, kept as the sorted 32-bit numbers of the eight hex digits after the folder's two (4 bytes an object:
 * 13 MB for 3,200,000 objects), so a build's hundreds of thousands of checks cost a binary search each instead of an
 * `access` (about 10 µs on a VM). Two addresses alike in those 40 bits count as one: a lost object is then taken as
 * stored, about 3 chances in a million in a folder of 12,500 objects (3,200,000 in all), and `hub index verify` still
 * names it. `held`: the objects the store holds in memory, which count as stored.
 */
export function listObjects(objectsDir: string, held: (address: Address) => boolean): StoredListing {
  const folders = new Map<string, Uint32Array>();
  let fanOut: string[];
  try {
    fanOut = readdirSync(objectsDir);
  } catch {
    fanOut = [];
  }
  for (const folder of fanOut) {
    if (!/^[0-9a-f]{2}$/.test(folder)) continue;
    const names = readdirSync(path.join(objectsDir, folder));
    const ids = new Uint32Array(names.length);
    let n = 0;
    for (const name of names) if (name.length === 64 && HEX64.test(name)) ids[n++] = Number.parseInt(name.slice(2, 10), 16);
    folders.set(folder, ids.subarray(0, n).sort());
  }
  const listed = (address: Address): boolean => {
    const ids = folders.get(address.slice(7, 9));
    if (!ids) return false;
    const want = Number.parseInt(address.slice(9, 17), 16);
    let [lo, hi] = [0, ids.length - 1];
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = ids[mid] as number;
      if (at === want) return true;
      if (at < want) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  };
  return { missing: (addresses) => addresses.filter((a) => !held(a) && !(isAddress(a) && listed(a))) };
}
