import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { GgufFacts } from '@hub/core-index';
import { writeFileAtomic } from '@hub/objects/node';
import type { FileStamp } from './hash-file.js';

const FORMAT = 'hub.from-dir-cache/v1';

/** Entries changed this close to their read are not kept (timestamps are coarse; git calls such entries racy). */
const RACY_MS = 2000;

type Entry = [size: number, mtimeNs: string, ctimeNs: string, ino: string, dev: string, sha256: string, gguf: GgufFacts | null];

export interface CachedFile {
  sha256: string;
  gguf: GgufFacts | null;
}

/** What a model folder's `.hub-facts.json` says (from-dir.ts reads it). */
export interface FolderFacts {
  license?: string;
  pipeline_tag?: string;
  library_name?: string;
  tags?: string[];
}

/** A model folder as the last build listed it: its files (paths under the folder, in walk order) and its facts file. */
type Listing = [files: string[], facts: FolderFacts | null];

/** A model folder taken as the last build listed and hashed it (a change feed did not name it). */
export interface ListedModel {
  files: Array<{ path: string; size: number; sha256: string; gguf: GgufFacts | null }>;
  facts: FolderFacts | null;
}

/**
 * The rebuild cache of `hub index build --from-dir`: for each file of the tree (by its path under the tree's root),
 * the stamp it had when it was hashed (size, modification and change times in nanoseconds, inode, device), its
 * SHA-256 and its GGUF header facts. A file whose stamp is unchanged is not read again; any difference re-hashes it.
 * Entries whose file changed within {@link RACY_MS} of being read are not kept, so a write in the same clock tick as
 * the read cannot leave a stale hash. The file starts with a line naming the format and the SHA-256 of the rest; a
 * cache that does not match it, or was made for another root, is ignored (everything is hashed).
 *
 * It also keeps each model folder's listing (its files and facts), so a build told what changed (a change feed:
 * `hub index build --changed`) takes the folders it was not told about as they were, without listing or stat'ing
 * them. A cache written before the listings were kept has none (a build with a feed then refuses).
 */
export class BuildCache {
  private readonly old: Map<string, Entry>;
  private readonly next = new Map<string, Entry>();
  private readonly nextListings = new Map<string, Listing>();
  hits = 0;

  private constructor(
    private readonly root: string,
    old: Map<string, Entry>,
    private readonly listings: Map<string, Listing> = new Map(),
  ) {
    this.old = old;
  }

  static load(file: string | undefined, root: string): BuildCache {
    if (!file) return new BuildCache(root, new Map());
    try {
      const text = readFileSync(file, 'utf8');
      const nl = text.indexOf('\n');
      const [format, sum] = text.slice(0, nl).split(' ');
      const body = text.slice(nl + 1);
      if (format !== FORMAT || createHash('sha256').update(body).digest('hex') !== sum) return new BuildCache(root, new Map());
      const parsed = JSON.parse(body) as { root: string; entries: Record<string, Entry>; models?: Record<string, Listing> };
      if (parsed.root !== root) return new BuildCache(root, new Map());
      return new BuildCache(root, new Map(Object.entries(parsed.entries)), new Map(Object.entries(parsed.models ?? {})));
    } catch {
      return new BuildCache(root, new Map());
    }
  }

  /** Whether a previous build recorded this path (then a stat tells whether it can be reused). */
  knows(rel: string): boolean {
    return this.old.has(rel);
  }

  /** The recorded hash and facts when the stamp is exactly the recorded one. */
  lookup(rel: string, stamp: FileStamp): CachedFile | undefined {
    const e = this.old.get(rel);
    if (!e || e[0] !== stamp.size || e[1] !== stamp.mtimeNs || e[2] !== stamp.ctimeNs || e[3] !== stamp.ino || e[4] !== stamp.dev)
      return undefined;
    this.next.set(rel, e);
    this.hits++;
    return { sha256: e[5], gguf: e[6] };
  }

  /** Record a file hashed now (`readAtMs`: when its bytes were read). */
  record(rel: string, stamp: FileStamp, sha256: string, gguf: GgufFacts | null, readAtMs: number): void {
    if (stamp.changedMs > readAtMs - RACY_MS) return;
    this.next.set(rel, [stamp.size, stamp.mtimeNs, stamp.ctimeNs, stamp.ino, stamp.dev, sha256, gguf]);
  }

  /** The model folders the last build listed (`owner/name`), in no particular order. */
  listedModels(): IterableIterator<string> {
    return this.listings.keys();
  }

  /**
   * The model folder `id` as the last build listed and hashed it, kept for the next build too; undefined when it was
   * not listed or one of its files has no entry (one changed too close to its read): then it is listed again.
   */
  reuseListed(id: string): ListedModel | undefined {
    const listing = this.listings.get(id);
    if (!listing) return undefined;
    const files: ListedModel['files'] = [];
    for (const rel of listing[0]) {
      const e = this.old.get(`${id}/${rel}`);
      if (!e) return undefined;
      files.push({ path: rel, size: e[0], sha256: e[5], gguf: e[6] });
    }
    for (const rel of listing[0]) this.next.set(`${id}/${rel}`, this.old.get(`${id}/${rel}`) as Entry);
    this.nextListings.set(id, listing);
    this.hits += files.length;
    return { files, facts: listing[1] };
  }

  /** Record a model folder as this build listed it. */
  list(id: string, files: string[], facts: FolderFacts | null): void {
    this.nextListings.set(id, [files, facts]);
  }

  /** Write the files and folders seen by this build (those gone from the tree drop out), atomically. */
  async save(file: string | undefined): Promise<void> {
    if (!file) return;
    const body = JSON.stringify({ root: this.root, entries: Object.fromEntries(this.next), models: Object.fromEntries(this.nextListings) });
    await writeFileAtomic(file, `${FORMAT} ${createHash('sha256').update(body).digest('hex')}\n${body}`);
  }
}
