import type { Address } from '../index/blake3.js';
import type { ObjectStore } from '../index/object-store.js';
import { type Archive, ArchiveSchema } from '../index/schemas.js';
import { appendDays, LogEntrySchema, readLogEntries, readLogState } from '../tlog/log-store.js';
import type { NoteSigner } from '../tlog/note.js';

type Day = Archive['days'][number];
const record = (d: Day) => ({ date: d.date, index: d.index, catalog: d.catalog ?? d.index });
const keyOf = (d: { date: string; index: string; catalog: string }) => `${d.date} ${d.index} ${d.catalog}`;

/**
 * The last step of a new day, one for the builder and for a bundle import (issue 38): every day of `archive` that the
 * store's transparency log does not hold yet becomes a leaf (oldest first; a rerun appends nothing twice), each day
 * gets its `leaf` in this log and the newest day the checkpoint `signers` sign over it; then the `archive` ref is
 * written and `current` switches to `current`. The objects and the log are written before the archive and `current`,
 * so a kill at any point leaves a log that verifies and the previous day served. Returns the archive as written.
 */
export async function commitDays(
  objects: ObjectStore,
  archive: Archive,
  current: Address,
  signers: readonly NoteSigner[] = [],
): Promise<Archive> {
  const leaves = new Map<string, number>();
  (await readLogEntries(objects, await readLogState(objects))).forEach((bytes, leaf) => {
    leaves.set(keyOf(LogEntrySchema.parse(JSON.parse(new TextDecoder().decode(bytes)))), leaf);
  });
  const fresh = [...archive.days]
    .reverse()
    .map(record)
    .filter((d) => !leaves.has(keyOf(d)));
  const logged = fresh.length > 0 || signers.length > 0 ? await appendDays(objects, fresh, signers) : undefined;
  for (const [i, d] of fresh.entries()) leaves.set(keyOf(d), logged?.leaves[i] as number);
  const days = archive.days.map((d) => {
    const leaf = leaves.get(keyOf(record(d)));
    return leaf === undefined ? d : { ...d, leaf };
  });
  const newest = days[0];
  if (newest && logged?.checkpoint) days[0] = { ...newest, checkpoint: logged.checkpoint };
  const written: Archive = { ...archive, days };
  await objects.writeRef('archive', JSON.stringify(written));
  await objects.writeRef('current', current);
  return written;
}

/** The archive document kept in the `archive` ref (newest day first). */
export async function readArchive(objects: ObjectStore): Promise<Archive> {
  const raw = await objects.readRef('archive');
  if (!raw) return { format: 'svc.model-hub.archive/v1', days: [] };
  const parsed = ArchiveSchema.safeParse(JSON.parse(raw));
  return parsed.success ? { format: 'svc.model-hub.archive/v1', ...parsed.data } : { format: 'svc.model-hub.archive/v1', days: [] };
}
