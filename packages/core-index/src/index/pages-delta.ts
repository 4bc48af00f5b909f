/**
 * What changed in a day's terms and digests, told from the base day's pages instead of the memo of the build that
 * wrote them (day-sections.ts): for a build whose memo is lost, damaged, of another build, or not to be used. The
 * stream keeps each model's section facts as a hash alone (16 bytes a model); at the end the base day's models pages
 * are read in browse order, each once, and a model removed, added, moved to another position or whose hash differs
 * makes the delta. The section facts of a model added or whose hash differs are read back from the day's own models
 * pages (those pages alone).
 */
import { blake3Hex } from './blake3.js';
import { type ListDir, type ModelsPageAt, modelsPagesOf } from './models-list.js';
import type { ObjectStore } from './object-store.js';
import type { PagedEntry, PagesRoot } from './page-layout.js';
import { U32List } from './page-tables.js';
import { keepingLast, readAhead, readPage } from './read-page.js';
import { SectionDelta } from './section-patch.js';
import { type SectionFacts, sectionBytes, sectionFactsAt, sectionFactsOf } from './table-facts.js';

const encoder = new TextEncoder();

/** Each model's section facts as the first 128 bits of a BLAKE3 of their JSON, by rank. */
export class SectionHashes {
  private readonly lanes = [new U32List(), new U32List(), new U32List(), new U32List()] as const;

  /** The hash of the next rank's section facts. */
  add(s: SectionFacts): void {
    const hex = hashOf(s);
    for (let k = 0; k < 4; k++) this.lanes[k]?.push(Number.parseInt(hex.slice(8 * k, 8 * k + 8), 16));
  }

  /** Whether `rank`'s section facts hash as `s` do. */
  same(rank: number, s: SectionFacts): boolean {
    const hex = hashOf(s);
    for (let k = 0; k < 4; k++) if (this.lanes[k]?.get(rank) !== Number.parseInt(hex.slice(8 * k, 8 * k + 8), 16)) return false;
    return true;
  }

  get length(): number {
    return this.lanes[0].length;
  }
}

function hashOf(s: SectionFacts): string {
  return blake3Hex(encoder.encode(JSON.stringify([s.pipeline, s.library, s.tags, s.shas])));
}

/** The day being built, as the delta needs it. */
export interface DayModels {
  /** each rank's position this day, and its position in the base day (0: none) */
  positions: Uint32Array;
  was: ArrayLike<number>;
  lowerIds: readonly string[];
  hashes: SectionHashes;
  /** the section facts of the models of these ranks (ascending), read back from the day's models pages */
  sectionsAt(ranks: readonly number[], each: (rank: number, s: SectionFacts) => void): Promise<void>;
}

/**
 * The delta from the base day (`root`, version 5) to this day, or undefined when more than `limit` models are in it,
 * or the base day's pages and this day's positions do not agree (a model's last position held another id, or none).
 * Throws `PageUnreadable` when a page of either day is missing or damaged.
 */
export async function deltaFromPages(
  store: ObjectStore,
  root: PagesRoot,
  day: DayModels,
  limit: number,
): Promise<SectionDelta | undefined> {
  const { positions, was, lowerIds, hashes } = day;
  const n = positions.length;
  // this day's ranks that had a position in the base day, by that position; and those added
  const added: number[] = [];
  for (let r = 0; r < n; r++) if (!was[r]) added.push(r);
  if (added.length > limit) return undefined;
  const byWas = new Uint32Array(n - added.length);
  for (let r = 0, k = 0; r < n; r++) if (was[r]) byWas[k++] = r;
  byWas.sort((a, b) => (was[a] as number) - (was[b] as number));
  const delta = new SectionDelta();
  let models = added.length;
  // ranks whose section facts are read back, with their old ones and position (none for a model added)
  const again = new Map<number, { s: Uint8Array | SectionFacts; at: number } | undefined>();
  const oldOf = (old: { s: Uint8Array | SectionFacts; at: number }) => (old.s instanceof Uint8Array ? sectionFactsAt(old.s, 0) : old.s);
  for (const r of added) again.set(r, undefined);
  let j = 0;
  const dirOf = keepingLast<ListDir>(store, 'models directory of the base day');
  const readModels = (at: ModelsPageAt) => readPage<{ models: PagedEntry[] }>(store, at.address, 'models page of the base day');
  for await (const [at, page] of readAhead(modelsPagesOf(root.models, root.version, dirOf), readModels)) {
    if (!at.positions || page.models.length !== at.size) return undefined;
    for (let k = 0; k < at.size; k++) {
      const p = at.positions[k] as number;
      const e = page.models[k] as PagedEntry;
      const r = byWas[j];
      if (r !== undefined && (was[r] as number) < p) return undefined; // a last position the base day does not hold
      const lower = e.id.toLowerCase();
      if (r === undefined || was[r] !== p) {
        // removed
        if (++models > limit) return undefined;
        delta.model(lower, { s: sectionFactsOf(e), at: p }, undefined);
        continue;
      }
      j++;
      if (lowerIds[r] !== lower) return undefined;
      const s = sectionFactsOf(e);
      const same = hashes.same(r, s);
      if (same && positions[r] === p) continue;
      if (++models > limit) return undefined;
      if (same) delta.model(lower, { s, at: p }, { s, at: positions[r] as number });
      else again.set(r, { s: sectionBytes(s) ?? s, at: p });
    }
  }
  if (j < byWas.length) return undefined;
  const ranks = [...again.keys()].sort((a, b) => a - b);
  let read = 0;
  let whole = true;
  await day.sectionsAt(ranks, (r, s) => {
    const old = again.get(r);
    const before = old && oldOf(old);
    if (old && !before) whole = false;
    else delta.model(lowerIds[r] as string, old && before ? { s: before, at: old.at } : undefined, { s, at: positions[r] as number });
    read++;
  });
  return whole && read === ranks.length ? delta : undefined;
}
