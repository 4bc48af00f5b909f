/**
 * The position each model had in the base day's pages (positions.ts), which this day's pages keep: from the memo of
 * the build that wrote that day when it can say, else from that day's id buckets (read once, when first needed). So
 * a day's pages are the same whether its build had a memo or not, and a model keeps its position when the memo is
 * lost, damaged, or of another build of the same day.
 */
import { fmix32 } from '../index/fnv.js';
import type { ObjectStore } from '../index/object-store.js';
import { type IdEntry, keyHash, type PagesRoot } from '../index/page-layout.js';
import { U32List } from '../index/page-tables.js';
import { readPage } from '../index/read-page.js';
import { type BuildMemo, type MemoModel, UNREADABLE } from './build-memo.js';

export class BasePositions {
  private read: Promise<IdPositions> | undefined;

  constructor(
    private readonly objects: ObjectStore,
    /** the base day's pages root (none: the base day has none, or there is no base day) */
    private readonly basePages: string | undefined,
    private readonly memo: BuildMemo | undefined,
  ) {}

  /**
   * The position of the model whose lower-case id is `lower` in the base day's pages; `looked`: what the memo said of
   * its id (`memo.model`), when the build asked it.
   */
  async of(lower: string, looked: MemoModel | undefined | typeof UNREADABLE): Promise<number | undefined> {
    const memo = this.memo;
    if (memo?.mode === 'yesterday' && memo.hasPositions) {
      // the memo of the build that wrote the base day knows every model that day had
      if (looked === undefined) return undefined;
      if (looked !== UNREADABLE && looked.rank !== undefined) return memo.position(looked.rank);
    }
    this.read ??= readIdPositions(this.objects, this.basePages);
    return (await this.read).get(lower);
  }

  /** Let the positions read from the base day's id buckets go (every model was asked). */
  release(): void {
    this.read = undefined;
  }
}

/** A second 32-bit hash of an id, apart from {@link keyHash}'s (djb2 with murmur3's finaliser). */
function otherHash(id: string): number {
  let h = 5381;
  for (let i = 0; i < id.length; i++) h = (Math.imul(h, 33) + id.charCodeAt(i)) | 0;
  return fmix32(h >>> 0);
}

/**
 * Lower-case ids' positions, by two 32-bit hashes of each id in sorted typed arrays (12 bytes an id: 12 MB at
 * 1,000,000, where a map of strings held about 100 MB). Two ids of 64 equal bits (about one chance in 10^7 at
 * 1,000,000 ids) are left out: they are given positions anew, which costs pages written again, never a wrong answer.
 */
class IdPositions {
  private readonly hashes = new U32List();
  private readonly checks = new U32List();
  private readonly positions = new U32List();
  private order: Uint32Array | undefined;

  add(id: string, position: number): void {
    this.hashes.push(keyHash(id));
    this.checks.push(otherHash(id));
    this.positions.push(position);
  }

  get(id: string): number | undefined {
    const { hashes, checks } = this;
    const h = keyHash(id);
    const c = otherHash(id);
    const cmp = (k: number) => hashes.get(k) - h || checks.get(k) - c;
    if (!this.order) {
      const order = new Uint32Array(hashes.length);
      for (let i = 0; i < order.length; i++) order[i] = i;
      this.order = order.sort((a, b) => hashes.get(a) - hashes.get(b) || checks.get(a) - checks.get(b));
    }
    const order = this.order;
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cmp(order[mid] as number) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= order.length || cmp(order[lo] as number) !== 0) return undefined;
    if (lo + 1 < order.length && cmp(order[lo + 1] as number) === 0) return undefined;
    return this.positions.get(order[lo] as number);
  }
}

/**
 * Every lower-case id's position in a day's pages (none before version 5), from its id buckets; none when a page of
 * them is missing or damaged (the models are then given positions anew).
 */
async function readIdPositions(objects: ObjectStore, pages: string | undefined): Promise<IdPositions> {
  try {
    return await idPositions(objects, pages);
  } catch {
    return new IdPositions();
  }
}

async function idPositions(objects: ObjectStore, pages: string | undefined): Promise<IdPositions> {
  const out = new IdPositions();
  const json = <T>(address: string) => readPage<T>(objects, address, 'index page of the base day');
  if (!pages) return out;
  const root = await json<PagesRoot>(pages);
  if (!(root.version >= 5)) return out;
  const buckets = [...(root.ids.pages ?? [])];
  for (const dir of root.ids.dirs ?? []) buckets.push(...(await json<{ pages: string[] }>(dir)).pages);
  for (const bucket of buckets)
    for (const [key, entry] of Object.entries((await json<{ entries: Record<string, IdEntry> }>(bucket)).entries))
      if (!key.startsWith('~')) out.add(key, entry[1]);
  return out;
}
