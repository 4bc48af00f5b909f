import { createHash } from 'node:crypto';
import { readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  type BuildInput,
  type BuildModelInput,
  type BuildResult,
  buildIndex,
  type GgufFacts,
  ggufFactsOf,
  isMmproj,
  type Logger,
  type NoteSigner,
  type ObjectStore,
  type ParsedGguf,
  type UnchangedModelInput,
} from '@hub/core-index';
import {
  BuildCache,
  type CachedFile,
  type CachedModel,
  type CachedRow,
  type FolderFacts,
  hashedRow,
  NextCache,
  rowFile,
  stampKey,
  wholeRows,
} from './build-cache.js';
import { hashFileStamped, stampOf } from './hash-file.js';
import { ChangeFeedError, fedTodo, readFolderFacts, type Todo, walkedTodo } from './tree-todo.js';

export { ChangeFeedError };

const GGUF_MAGIC = [0x47, 0x47, 0x55, 0x46];

/** Models hashed at once by {@link buildFromDir}. */
const HASH_CONCURRENCY = 16;

export interface FromDirSource {
  name: string;
  url?: string;
}

export interface FromDirOptions {
  dir: string;
  sources: FromDirSource[];
  date?: string;
  display?: (name: string) => string;
  log?: Logger;
  /**
   * The rebuild cache (a file in the data folder): files whose stamp (size, times, inode) matches the previous
   * build's record are not read or parsed again. Absent: every file is hashed.
   */
  cacheFile?: string;
  /** Keys that sign the transparency log's checkpoint (design 10.4). */
  signers?: readonly NoteSigner[];
  /** progress callback: files indexed so far (hashed or taken from the rebuild cache), and the last one */
  progress?: (done: number, file: string) => void;
  /** Every model and source object of the new catalog, for the host's load pack (`BuildInput.onObject`). */
  onObject?: BuildInput['onObject'];
  /** The objects to derive the day's index pages from (`BuildInput.pages`: a LoadPackWriter filled through `onObject`). */
  pages?: BuildInput['pages'];
  /** Each models page as the build writes it (`BuildInput.onModelsPage`: node-server makes the day's answers from them). */
  onModelsPage?: BuildInput['onModelsPage'];
  /**
   * A change feed: what changed in the tree since the last build, as paths under `dir` (a file, a model folder
   * `owner/name`, or an owner folder; added, changed or removed). The model folders it does not name are taken as the
   * last build listed and hashed them (from the rebuild cache), without listing or stat'ing anything of theirs, so the
   * tree's walk costs in proportion to what changed. Needs the rebuild cache of a build of the same tree
   * ({@link ChangeFeedError} otherwise). Paths are checked by {@link changeFeedPaths}.
   */
  changed?: readonly string[];
}

/**
 * The lines of a change feed as paths under `root`: relative paths, or absolute ones under `root` as given or under
 * its real path (a tree reached through a symbolic link, whose watcher reports real paths, as macOS's FSEvents does);
 * blank lines and `#` comments are skipped. A path outside the tree (or with `..` segments) is a
 * {@link ChangeFeedError}, named.
 */
export function changeFeedPaths(root: string, lines: readonly string[]): string[] {
  const out: string[] = [];
  let real: string | undefined;
  const under = (line: string): string => {
    const rel = path.relative(root, line);
    if (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel)) return rel;
    real ??= realOr(root);
    return path.relative(real, line);
  };
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const rel = path.isAbsolute(line) ? under(line) : line;
    const parts = rel.split(/[\\/]+/).filter((p) => p && p !== '.');
    if (parts.length === 0 || parts.includes('..') || path.isAbsolute(rel))
      throw new ChangeFeedError(`line ${i + 1} of the change feed is not a path under ${root}`);
    out.push(parts.join('/'));
  }
  return out;
}

/** The real path of `dir`, or `dir` when it cannot be resolved (a missing tree is named by the build that reads it). */
function realOr(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/** GGUF header facts by local read (architecture, context, parameters, quantisation, chat template). */
export async function ggufFacts(file: string, relPath: string): Promise<GgufFacts | undefined> {
  try {
    const { gguf } = await import('@huggingface/gguf');
    const parsed = (await gguf(file, { allowLocalFile: true, computeParametersCount: true })) as unknown as ParsedGguf;
    return ggufFactsOf(relPath, parsed);
  } catch {
    return undefined;
  }
}

/**
 * Why `root` cannot be indexed as `{owner}/{name}/…`, or undefined when it can: it cannot be read, it holds no model
 * folder, or an owner folder holds files itself (the tree was given one level too deep: `/srv/models/acme` for
 * `/srv/models`, whose model folders would become owners and their files go unindexed without a word).
 */
export function treeLayoutProblem(root: string): string | undefined {
  let owners: string[];
  try {
    owners = readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name);
  } catch (e) {
    return `cannot read ${root}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
  }
  let models = 0;
  for (const owner of owners.sort()) {
    const entries = readdirSync(path.join(root, owner), { withFileTypes: true }).filter((e) => !e.name.startsWith('.'));
    const file = entries.find((e) => e.isFile());
    if (file)
      return `${path.join(root, owner, file.name)} lies where model folders belong: the tree must be {owner}/{name}/…; is ${root} one level too deep (its parent ${path.dirname(root)})?`;
    models += entries.filter((e) => e.isDirectory()).length;
  }
  if (models === 0) return `${root} holds no model folder: the tree must be {owner}/{name}/… (for example acme/widget/config.json)`;
  return undefined;
}

/**
 * Index a local tree laid out as `{owner}/{name}/…`: every model folder becomes a model, every file
 * is hashed with SHA-256 (streamed), the revision is derived from the listing, and each `--source`
 * is recorded as holding every file. The descriptor switches to the new catalog atomically.
 * The folders are walked, hashed and handed to the builder a batch at a time, beside the rebuild cache read and
 * written as a stream in the same order: a build holds a batch of folders, not the tree.
 */
export async function buildFromDir(objects: ObjectStore, options: FromDirOptions): Promise<BuildResult> {
  const root = path.resolve(options.dir);
  const cache = BuildCache.open(options.cacheFile, root);
  let next: NextCache | undefined;
  let files = 0;
  let reused = 0;
  /** One file of a walked folder: from the last build's row when its stamp is unchanged, else read and hashed. */
  const fileOne = async (t: { dir: string; rows: ((rel: string) => CachedRow | undefined) | undefined }, rel: string) => {
    const full = path.join(t.dir, rel);
    const row = t.rows?.(rel);
    if (row && row.length === 5) {
      const stamp = stampOf(statSync(full, { bigint: true }));
      const hit = rowFile(row, stampKey(stamp));
      if (hit && hit.size === stamp.size) {
        reused++;
        return { file: hit, row };
      }
    }
    const readAt = Date.now();
    const { sha256, size, stamp, head } = await hashFileStamped(full);
    let gguf: GgufFacts | null = null;
    // A small file that does not start with the GGUF magic is not parsed (the parser would refuse it anyway).
    const magic = !head || GGUF_MAGIC.every((b, i) => head[i] === b);
    if (magic && /\.gguf$/i.test(rel) && !isMmproj(rel)) gguf = (await ggufFacts(full, rel)) ?? null;
    return { file: { size, sha256, gguf }, row: hashedRow(rel, stamp, sha256, gguf, readAt) };
  };
  /** A folder's input from its files (hashed now or taken from the cache) and facts. */
  const inputOf = (id: string, taken: ReadonlyArray<CachedFile & { path: string }>, facts: FolderFacts | null): BuildModelInput => {
    const gguf = taken.flatMap((f) => (f.gguf ? [f.gguf] : []));
    const first = gguf[0];
    const extra = facts ?? {};
    return {
      id,
      files: taken.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })),
      license: extra.license ?? null,
      facts: {
        ...(extra.pipeline_tag ? { pipeline_tag: extra.pipeline_tag } : {}),
        ...(extra.library_name ? { library_name: extra.library_name } : {}),
        ...(extra.tags ? { tags: extra.tags } : {}),
        ...(gguf.length ? { gguf, tags: extra.tags ?? ['gguf'] } : {}),
        ...(first?.parameters !== undefined ? { parameters: first.parameters } : {}),
        ...(first?.context_length !== undefined ? { context: first.context_length } : {}),
        ...(gguf.length && !extra.pipeline_tag ? { pipeline_tag: 'text-generation' } : {}),
      },
      sources: options.sources.map((s) => ({ source: s.name, type: 'http' as const, ...(s.url ? { url: s.url } : {}) })),
    };
  };
  // An unchanged folder's input, made from its cache line's text when the builder asks: the text is all it holds
  // (a catalog shard holds its rows' inputs until it is cut; parsed lines kept that long cost the collector more).
  const unchanged = (id: string, text: string): UnchangedModelInput => ({
    id,
    input: () => {
      const line = JSON.parse(text) as CachedModel;
      return inputOf(id, wholeRows(line) ?? [], line[2]);
    },
  });
  const indexOne = async (t: Todo): Promise<{ input: BuildModelInput | UnchangedModelInput; line: CachedModel | string }> => {
    if (t.listed) {
      // A folder the change feed does not name, as the last build listed it: given to the builder as unchanged (its
      // input made only if the last build's memo cannot serve it), and its cache line kept as it was.
      files += t.whole.length;
      reused += t.whole.length;
      options.progress?.(files, `${t.id}/${t.whole.at(-1)?.path ?? ''}`);
      return { input: unchanged(t.id, t.text), line: t.text };
    }
    const taken: Array<CachedFile & { path: string }> = [];
    const rows: CachedRow[] = [];
    for (const rel of t.files) {
      const one = await fileOne(t, rel);
      taken.push({ path: rel, ...one.file });
      rows.push(one.row);
      files++;
      options.progress?.(files, `${t.id}/${rel}`);
    }
    const facts = t.hasFacts ? readFolderFacts(t.dir) : null;
    options.log?.info({ model: t.id, files: taken.length }, 'indexed model');
    // Walked and found as the last build listed it (every file taken from its row, the same facts): unchanged too.
    const was = t.last?.model;
    if (was && was[1].length === rows.length && rows.every((r, k) => r === was[1][k]) && JSON.stringify(facts) === JSON.stringify(was[2]))
      return { input: unchanged(t.id, t.last?.text as string), line: t.last?.text as string };
    return { input: inputOf(t.id, taken, facts), line: [t.id, rows, facts] };
  };
  // A few models at once: big files' streamed reads and GGUF header reads overlap instead of waiting on one file at a
  // time (small files are read synchronously). Models keep the tree's order, and so do the next cache's lines.
  async function* models(todo: Iterable<Todo>): AsyncGenerator<BuildModelInput | UnchangedModelInput> {
    let batch: Todo[] = [];
    const done = async () => {
      const out = await Promise.all(batch.map(indexOne));
      batch = [];
      for (const o of out) next?.add(o.line);
      return out.map((o) => o.input);
    };
    for (const t of todo) {
      batch.push(t);
      if (batch.length === HASH_CONCURRENCY) yield* await done();
    }
    yield* await done();
  }
  // A `display` is a function, which no stamp can hold: a build with one gives the memo no stamp (and takes none).
  const stamped = !options.display;
  const inputStamp = (checksum: string) =>
    createHash('sha256')
      .update(JSON.stringify({ cache: checksum, sources: options.sources }))
      .digest('hex');
  try {
    const todo = options.changed ? fedTodo(root, cache, options.changed) : walkedTodo(root, cache);
    // the first folder before anything is written: a feed without a cache to go on is refused here
    const first = todo.next();
    const rest: Iterable<Todo> = { [Symbol.iterator]: () => todo };
    if (options.cacheFile) next = new NextCache(options.cacheFile, root);
    const result = await buildIndex(objects, {
      date: options.date ?? new Date().toISOString().slice(0, 10),
      models: models(
        first.done
          ? []
          : (function* () {
              yield first.value;
              yield* rest;
            })(),
      ),
      ...(options.display ? { display: options.display } : {}),
      // The input's stamp: the rebuild cache's checksum (every folder's files and facts) and the sources, which is all a
      // model's input is made from here; the unchanged models of a feed are unchanged since the last cache's stamp.
      ...(stamped && cache.checksum ? { since: inputStamp(cache.checksum) } : {}),
      ...(stamped && next ? { stamp: () => inputStamp((next as NextCache).checksum()) } : {}),
      ...(options.signers ? { signers: options.signers } : {}),
      ...(options.onObject ? { onObject: options.onObject } : {}),
      ...(options.pages ? { pages: options.pages } : {}),
      ...(options.onModelsPage ? { onModelsPage: options.onModelsPage } : {}),
    });
    // Only after the index is written: a build that failed leaves the previous cache (still true of the files).
    cache.close();
    await next?.commit();
    options.log?.info({ files, reused }, 'from-dir cache');
    return result;
  } catch (e) {
    cache.close();
    next?.abort();
    throw e;
  }
}
