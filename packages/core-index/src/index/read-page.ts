// One page of a day's index pages (page-layout.ts) read from the object store and checked against its address.
import { type Address, addressOf } from './blake3.js';
import type { ObjectStore } from './object-store.js';

const decoder = new TextDecoder();

/** A page that is missing from the store or does not hash to its address. */
export class PageUnreadable extends Error {}

/** The page at `address`, parsed; throws {@link PageUnreadable} (`what` names it) when missing or damaged. */
export async function readPage<T>(store: ObjectStore, address: string, what = 'index page'): Promise<T> {
  const stored = await store.get(address as Address);
  if (!stored || addressOf(stored.bytes) !== address) throw new PageUnreadable(`${what} ${address} is missing or damaged`);
  return JSON.parse(decoder.decode(stored.bytes)) as T;
}

/** {@link readPage}, or undefined when the page is missing or damaged. */
export async function readPageOrNone<T>(store: ObjectStore, address: string): Promise<T | undefined> {
  try {
    return await readPage<T>(store, address);
  } catch (e) {
    if (e instanceof PageUnreadable) return undefined;
    throw e;
  }
}

/** A reader of pages that keeps the last page it read: a walk that asks the same page again reads it once. */
export function keepingLast<T>(store: ObjectStore, what?: string): (address: string) => Promise<T> {
  let last: { address: string; page: T } | undefined;
  return async (address) => {
    if (last?.address !== address) last = { address, page: await readPage<T>(store, address, what) };
    return last.page;
  };
}

/**
 * Each item of `items` in order with what `read` gave for it, up to `ahead` reads in flight: a walk of many small
 * pages waits on the store once per `ahead` pages instead of once per page (a read is mostly waiting for the disk).
 */
export async function* readAhead<X, T>(
  items: AsyncIterable<X> | Iterable<X>,
  read: (x: X) => Promise<T>,
  ahead = 16,
): AsyncGenerator<[X, T]> {
  const queue: Array<[X, Promise<T>]> = [];
  try {
    for await (const x of items) {
      const p = read(x);
      p.catch(() => {}); // awaited in turn below; this only keeps a failure meanwhile from counting as unhandled
      queue.push([x, p]);
      if (queue.length >= ahead) {
        const [y, q] = queue.shift() as [X, Promise<T>];
        yield [y, await q];
      }
    }
    while (queue.length > 0) {
      const [y, q] = queue.shift() as [X, Promise<T>];
      yield [y, await q];
    }
  } finally {
    queue.length = 0;
  }
}
