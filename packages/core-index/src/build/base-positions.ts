/**
 * The position each model had in the base day's pages (positions.ts), which this day's pages keep: from the memo of
 * the build that wrote that day when it can say, else from that day's id buckets (read once, when first needed). So
 * a day's pages are the same whether its build had a memo or not, and a model keeps its position when the memo is
 * lost, damaged, or of another build of the same day.
 */
import { type Address, addressOf } from '../index/blake3.js';
import type { ObjectStore } from '../index/object-store.js';
import type { IdEntry, PagesRoot } from '../index/page-layout.js';
import { type BuildMemo, type MemoModel, UNREADABLE } from './build-memo.js';

const decoder = new TextDecoder();

export class BasePositions {
  private read: Promise<Map<string, number>> | undefined;

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
}

/**
 * Every lower-case id's position in a day's pages (none before version 5), from its id buckets; none when a page of
 * them is missing or damaged (the models are then given positions anew).
 */
async function readIdPositions(objects: ObjectStore, pages: string | undefined): Promise<Map<string, number>> {
  try {
    return await idPositions(objects, pages);
  } catch {
    return new Map();
  }
}

async function idPositions(objects: ObjectStore, pages: string | undefined): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const json = async <T>(address: string): Promise<T> => {
    const stored = await objects.get(address as Address);
    if (!stored || addressOf(stored.bytes) !== address) throw new Error(`index page ${address} of the base day is missing or damaged`);
    return JSON.parse(decoder.decode(stored.bytes)) as T;
  };
  if (!pages) return out;
  const root = await json<PagesRoot>(pages);
  if (!(root.version >= 5)) return out;
  const buckets = [...(root.ids.pages ?? [])];
  for (const dir of root.ids.dirs ?? []) buckets.push(...(await json<{ pages: string[] }>(dir)).pages);
  for (const bucket of buckets)
    for (const [key, entry] of Object.entries((await json<{ entries: Record<string, IdEntry> }>(bucket)).entries))
      if (!key.startsWith('~')) out.set(key, entry[1]);
  return out;
}
