/**
 * Positions (layout 5, page-layout.ts): a number for each model that does not move with the models before it, so a
 * model added to or removed from the browse list changes the look-up pages that name it and not every page after it
 * (docs/decisions/scale-and-speed.md, "Positions: a model added moves no other"). Positions ascend in browse order,
 * sparse: a first day gives rank `r` the position `(r + 1) × POSITION_GAP`; a later day keeps the position each model
 * had wherever it can (the longest run of kept positions that still ascends), gives a new or moved model one between
 * its neighbours', and gives a few neighbours new ones where there is no room.
 */

/** The room between two positions a first day gives, and a model added at the end of the list. */
export const POSITION_GAP = 64;
/** The largest position (32 bits, below page-tables.ts `END`); past it every position is given anew. */
export const POSITION_MAX = 0xffff_fffe;
/**
 * Where a run of models has no room between the kept positions around it, its window grows over kept neighbours until
 * its models are at least this far apart on average, so the next models added there find room too.
 */
const SPREAD_GAP = POSITION_GAP / 4;

/** `n` positions spread over the whole range (an index too large for the usual gap). */
function spreadAll(n: number): Uint32Array {
  const out = new Uint32Array(n);
  const step = POSITION_MAX / (n + 1);
  for (let i = 0; i < n; i++) out[i] = Math.floor(step * (i + 1));
  return out;
}

/**
 * Which of the earlier positions to keep: the longest strictly ascending run of them (0: the model had none), as a
 * mark per model. O(n log n) (patience sorting); the kept positions are then in browse order, as positions must be.
 */
function longestAscending(was: Uint32Array): Uint8Array {
  const n = was.length;
  const tails = new Int32Array(n);
  const before = new Int32Array(n);
  let length = 0;
  for (let i = 0; i < n; i++) {
    const v = was[i] as number;
    if (v === 0) continue;
    // the first tail whose value is at least v
    let lo = 0;
    let hi = length;
    if (length > 0 && (was[tails[length - 1] as number] as number) < v) lo = length;
    else
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((was[tails[mid] as number] as number) < v) lo = mid + 1;
        else hi = mid;
      }
    before[i] = lo > 0 ? (tails[lo - 1] as number) : -1;
    tails[lo] = i;
    if (lo === length) length++;
  }
  const keep = new Uint8Array(n);
  for (let i = length > 0 ? (tails[length - 1] as number) : -1; i >= 0; i = before[i] as number) keep[i] = 1;
  return keep;
}

/**
 * This day's positions, by rank, from the position each model had the day before (`was`, by this day's rank; 0 for a
 * model without one). Every kept position is `was`'s; the others are spread between their kept neighbours.
 */
export function assignPositions(was: Uint32Array): Uint32Array {
  const n = was.length;
  const keep = longestAscending(was);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) if (keep[i]) out[i] = was[i] as number;
  // each run of models without a kept position, between the kept ones around it
  for (let i = 0; i < n; ) {
    if (keep[i]) {
      i++;
      continue;
    }
    let from = i;
    let to = i;
    while (to < n && !keep[to]) to++;
    // the window (from, to) excludes its bounds' kept models: `lo` and `hi` are their positions (none: 0, or open)
    for (;;) {
      const lo = from > 0 ? (out[from - 1] as number) : 0;
      if (to >= n) {
        if (lo + (to - from) * POSITION_GAP > POSITION_MAX) return spreadAll(n);
        for (let k = from; k < to; k++) out[k] = lo + (k - from + 1) * POSITION_GAP;
        break;
      }
      const hi = out[to] as number;
      const count = to - from;
      if (hi - lo >= (count + 1) * SPREAD_GAP) {
        const step = (hi - lo) / (count + 1);
        for (let k = from; k < to; k++) out[k] = lo + Math.floor(step * (k - from + 1));
        break;
      }
      // no room: take the next kept neighbour into the window, on the side with fewer models taken so far
      const left = from > 0;
      if (left && (to >= n || from <= n - to)) {
        from--;
        while (from > 0 && !keep[from - 1]) from--;
      } else {
        to++;
        while (to < n && !keep[to]) to++;
      }
    }
    i = to;
  }
  return out;
}
