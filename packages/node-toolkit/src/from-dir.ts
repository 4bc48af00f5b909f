import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
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
  rowsOf,
  stampKey,
  wholeRows,
} from './build-cache.js';
import { hashFileStamped, stampOf } from './hash-file.js';

/** The optional facts file of a model folder (not indexed as a file). */
const FACTS_FILE = '.hub-facts.json';
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

/** A change feed that cannot be used: no rebuild cache of this tree, or a path that is not under it. */
export class ChangeFeedError extends Error {}

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

interface Walked {
  /** file paths relative to the model folder, sorted per folder */
  files: string[];
  /** the model folder holds `.hub-facts.json` */
  hasFacts: boolean;
}

/**
 * The files of one model folder, read synchronously: a few `readdir`s per model cost less than a thread-pool round
 * trip each (the build is a command, not a server answering requests).
 */
function walk(dir: string, prefix = '', out: Walked = { files: [], hasFacts: false }): Walked {
  const entries = readdirSync(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    if (!prefix && e.name === FACTS_FILE) out.hasFacts = true;
    if (e.name.startsWith('.') && e.name !== '.gitattributes') continue;
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) walk(path.join(dir, e.name), rel, out);
    else if (e.isFile()) out.files.push(rel);
  }
  return out;
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
 * Optional `.hub-facts.json` in a model folder (not indexed as a file): license, pipeline_tag,
 * library_name and tags, which a bare tree cannot tell.
 */
function readFolderFacts(dir: string): FolderFacts {
  try {
    const raw = JSON.parse(readFileSync(path.join(dir, FACTS_FILE), 'utf8')) as FolderFacts;
    const out: FolderFacts = {};
    if (typeof raw.license === 'string') out.license = raw.license;
    if (typeof raw.pipeline_tag === 'string') out.pipeline_tag = raw.pipeline_tag;
    if (typeof raw.library_name === 'string') out.library_name = raw.library_name;
    if (Array.isArray(raw.tags)) out.tags = raw.tags.filter((t): t is string => typeof t === 'string');
    return out;
  } catch {
    return {};
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

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : 1);

/** Whether folder `a` comes before folder `b` in walk order (owners by name, then their models by name). */
function walksBefore(a: string, b: string): boolean {
  const [sa, sb] = [a.indexOf('/'), b.indexOf('/')];
  const [oa, ob] = [a.slice(0, sa), b.slice(0, sb)];
  return oa !== ob ? oa < ob : a.slice(sa + 1) < b.slice(sb + 1);
}

/** A model folder to index: walked now (with the last build's rows to look its files up in), or taken as listed. */
type Todo = { id: string; dir: string } & (
  | { files: string[]; hasFacts: boolean; rows: ((rel: string) => CachedRow | undefined) | undefined; listed?: undefined }
  | { listed: CachedModel; whole: Array<CachedFile & { path: string }> }
);

/** Every model folder of the tree, walked in order (owners, then their models, by name); one owner's names held at a time. */
function* walkedTodo(root: string, cache: BuildCache): Generator<Todo> {
  const owners = readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith('.'));
  for (const owner of owners.sort(byName)) {
    const names = readdirSync(path.join(root, owner.name), { withFileTypes: true }).filter((e) => e.isDirectory());
    for (const name of names.sort(byName)) {
      const id = `${owner.name}/${name.name}`;
      const dir = path.join(root, owner.name, name.name);
      yield { id, dir, ...walk(dir), rows: cache.model(id, walksBefore) };
    }
  }
}

/**
 * The model folders of the tree as a change feed tells them: the last build's folders in turn (from the cache, in
 * walk order), each one the feed names walked again (or gone, when it is), the others taken as listed; and, merged in
 * order, the folders the feed names that the last build did not have (an owner named alone: each of its folders).
 * Only what the feed names is listed or stat'ed.
 */
function* fedTodo(root: string, cache: BuildCache, changed: readonly string[]): Generator<Todo> {
  if (!cache.listed)
    throw new ChangeFeedError(
      `a change feed needs the rebuild cache of an earlier build of ${root} (its data folder's cache/from-dir.json): build once without it`,
    );
  const named = new Set<string>();
  const owners = new Set<string>();
  for (const p of changed) {
    const [owner, name] = p.split('/') as [string, string | undefined];
    if (owner.startsWith('.')) continue; // not an owner folder (the walk skips it too)
    if (name === undefined) owners.add(owner);
    else named.add(`${owner}/${name}`);
  }
  const isDir = (dir: string) => statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;
  // the named folders that are there (the last build's among them are met again in the cache)
  const there = new Set([...named].filter((id) => isDir(path.join(root, id))));
  for (const owner of owners) {
    const dir = path.join(root, owner);
    if (isDir(dir)) for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) there.add(`${owner}/${e.name}`);
  }
  const fresh = [...there].sort((a, b) => (walksBefore(a, b) ? -1 : 1));
  let f = 0;
  const walked = (id: string, model: CachedModel | undefined): Todo => {
    const dir = path.join(root, id);
    return { id, dir, ...walk(dir), rows: model ? rowsOf(model) : undefined };
  };
  for (let m = cache.nextModel(); m; m = cache.nextModel()) {
    const id = m[0];
    for (; f < fresh.length && walksBefore(fresh[f] as string, id); f++) yield walked(fresh[f] as string, undefined);
    if (fresh[f] === id) f++;
    if (named.has(id) || owners.has(id.slice(0, id.indexOf('/')))) {
      if (there.has(id)) yield walked(id, m);
      continue;
    }
    const whole = wholeRows(m);
    // a folder with a file that kept no hash (changed too close to its read) is walked again; one gone is gone
    if (whole) yield { id, dir: path.join(root, id), listed: m, whole };
    else if (isDir(path.join(root, id))) yield walked(id, m);
  }
  for (; f < fresh.length; f++) yield walked(fresh[f] as string, undefined);
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
  const indexOne = async (t: Todo): Promise<{ input: BuildModelInput; line: CachedModel }> => {
    const records: Array<{ path: string; size: number; sha256: string }> = [];
    const rows: CachedRow[] = [];
    const gguf: GgufFacts[] = [];
    const take = (rel: string, file: CachedFile) => {
      records.push({ path: rel, size: file.size, sha256: file.sha256 });
      if (file.gguf) gguf.push(file.gguf);
      files++;
      options.progress?.(files, `${t.id}/${rel}`);
    };
    let facts: FolderFacts | null;
    if (t.listed) {
      for (const f of t.whole) take(f.path, f);
      rows.push(...t.listed[1]);
      reused += t.whole.length;
      facts = t.listed[2];
    } else {
      for (const rel of t.files) {
        const one = await fileOne(t, rel);
        take(rel, one.file);
        rows.push(one.row);
      }
      facts = t.hasFacts ? readFolderFacts(t.dir) : null;
    }
    const first = gguf[0];
    const extra = facts ?? {};
    options.log?.info({ model: t.id, files: records.length }, 'indexed model');
    const input: BuildModelInput = {
      id: t.id,
      files: records,
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
    return { input, line: [t.id, rows, facts] };
  };
  // A few models at once: big files' streamed reads and GGUF header reads overlap instead of waiting on one file at a
  // time (small files are read synchronously). Models keep the tree's order, and so do the next cache's lines.
  async function* models(todo: Iterable<Todo>): AsyncGenerator<BuildModelInput> {
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
