/**
 * Finding a rank's models page in a day's models list (page-layout.ts `ModelsList`): version 4 cuts its pages where
 * their ids say and names each page's size, so a rank's page is found by a binary search of the directory's first
 * ranks and then of the pages' running sizes; version 3 and before hold `per` models a page.
 */
import { DIR_FANOUT, type ModelsList } from './page-layout.js';
import { type Later, whenReady } from './store-types.js';

/**
 * A models page of the list: its address, the rank of its first model and how many models it holds; version 5: its
 * models' positions (positions.ts).
 */
export interface ModelsPageAt {
  address: string;
  first: number;
  size: number;
  positions?: number[] | undefined;
}

/**
 * A directory page of a list: its page addresses and, in a version 4 models list, each page's size; version 5: every
 * model's position.
 */
export interface ListDir {
  pages: string[];
  sizes?: number[];
  positions?: number[];
}

/**
 * The address of page `p` of a paged list of `per` items a page: inline, or through its directories of
 * {@link DIR_FANOUT} pages (`dir` reads one). At once when inline or the directory is at hand.
 */
export function pageAddressIn(
  list: { pages?: string[]; dirs?: string[] },
  p: number,
  dir: (address: string) => Later<ListDir>,
): Later<string> {
  if (list.pages) return list.pages[p] as string;
  return whenReady(dir((list.dirs as string[])[Math.floor(p / DIR_FANOUT)] as string), (d) => d.pages[p % DIR_FANOUT] as string);
}

/** The running sizes of a list of sizes (`starts[i]`: the models before page `i`), made once per array. */
const startsBySizes = new WeakMap<readonly number[], Uint32Array>();

function startsOf(sizes: readonly number[]): Uint32Array {
  let starts = startsBySizes.get(sizes);
  if (!starts) {
    starts = new Uint32Array(sizes.length + 1);
    for (let i = 0; i < sizes.length; i++) starts[i + 1] = (starts[i] as number) + (sizes[i] as number);
    startsBySizes.set(sizes, starts);
  }
  return starts;
}

/** The last index `i` of an ascending list with `list[i] <= value` (-1 when none is). */
function lastAtMost(list: ArrayLike<number>, value: number, length = list.length): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as number) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/**
 * The page of `pages` (sizes `sizes`, the first holding rank `base`; version 5: `positions`, each model's) that holds
 * `rank`.
 */
function within(
  pages: readonly string[],
  sizes: readonly number[],
  base: number,
  rank: number,
  positions?: readonly number[],
): ModelsPageAt {
  const starts = startsOf(sizes);
  const p = lastAtMost(starts, rank - base, sizes.length);
  if (p < 0 || rank - base >= (starts[sizes.length] as number)) throw new RangeError(`rank ${rank} is not in the models list`);
  const [from, size] = [starts[p] as number, sizes[p] as number];
  return { address: pages[p] as string, first: base + from, size, positions: positions?.slice(from, from + size) };
}

/**
 * The models page that holds `rank` of a day's list (`version`: its root's); `dir` reads a directory page. At once
 * when the list is inline or its directory is at hand, else a promise.
 */
export function modelsPageOf(
  list: ModelsList,
  version: number,
  rank: number,
  dir: (address: string) => Later<ListDir>,
): Later<ModelsPageAt> {
  if (!(Number.isInteger(rank) && rank >= 0 && rank < list.count))
    throw new RangeError(`rank ${rank} is not in the models list of ${list.count}`);
  if (version < 4) {
    const p = Math.floor(rank / list.per);
    const first = p * list.per;
    return whenReady(pageAddressIn(list, p, dir), (address) => ({ address, first, size: Math.min(list.per, list.count - first) }));
  }
  if (list.pages) return within(list.pages, list.sizes as number[], 0, rank, list.positions);
  const firsts = list.firsts as number[];
  const d = lastAtMost(firsts, rank);
  return whenReady(dir((list.dirs as string[])[d] as string), (page) =>
    within(page.pages, page.sizes as number[], firsts[d] as number, rank, page.positions),
  );
}

/**
 * The models page of a version 5 list that holds the model at `position` (positions.ts), and its place there;
 * undefined when no model has it. At once when the list is inline or its directory is at hand, else a promise.
 */
export function modelsPageAtPosition(
  list: ModelsList,
  position: number,
  dir: (address: string) => Later<ListDir>,
): Later<(ModelsPageAt & { place: number }) | undefined> {
  const find = (pages: readonly string[], sizes: readonly number[], base: number, positions: readonly number[]) => {
    const i = lastAtMost(positions, position);
    if (i < 0 || positions[i] !== position) return undefined;
    const at = within(pages, sizes, base, base + i, positions);
    return { ...at, place: base + i - at.first };
  };
  if (list.pages) return find(list.pages, list.sizes as number[], 0, list.positions as number[]);
  const d = lastAtMost(list.dirPositions as number[], position);
  if (d < 0) return undefined;
  return whenReady(dir((list.dirs as string[])[d] as string), (page) =>
    find(page.pages, page.sizes as number[], (list.firsts as number[])[d] as number, page.positions as number[]),
  );
}

/** The first index `i` of an ascending list with `list[i] >= value` (its length when none is). */
export function firstAtLeast(list: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The rank of the first model of a version 5 list whose position is `position` or after it (the count when none is).
 * At once when the list is inline or its directory is at hand, else a promise.
 */
export function rankFromPosition(list: ModelsList, position: number, dir: (address: string) => Later<ListDir>): Later<number> {
  if (list.pages) return firstAtLeast(list.positions as number[], position);
  const d = lastAtMost(list.dirPositions as number[], position);
  if (d < 0) return 0;
  const first = (list.firsts as number[])[d] as number;
  return whenReady(dir((list.dirs as string[])[d] as string), (page) => first + firstAtLeast(page.positions as number[], position));
}

/** Every models page of a day's list in browse order (a directory page read at a time). */
export async function* modelsPagesOf(
  list: ModelsList,
  version: number,
  dir: (address: string) => Later<ListDir>,
): AsyncGenerator<ModelsPageAt> {
  if (version < 4) {
    const count = Math.ceil(list.count / list.per);
    for (let p = 0; p < count; p++) {
      const first = p * list.per;
      yield { address: await pageAddressIn(list, p, dir), first, size: Math.min(list.per, list.count - first) };
    }
    return;
  }
  let first = 0;
  const walk = function* (pages: readonly string[], sizes: readonly number[], positions?: readonly number[]): Generator<ModelsPageAt> {
    for (let p = 0, at = 0; p < pages.length; p++) {
      const size = sizes[p] as number;
      yield { address: pages[p] as string, first, size, positions: positions?.slice(at, at + size) };
      first += size;
      at += size;
    }
  };
  if (list.pages) yield* walk(list.pages, list.sizes as number[], list.positions);
  else
    for (const a of list.dirs as string[]) {
      const page = await dir(a);
      yield* walk(page.pages, page.sizes as number[], page.positions);
    }
}
