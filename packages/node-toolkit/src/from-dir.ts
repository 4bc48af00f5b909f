import { readdirSync, readFileSync, statSync } from 'node:fs';
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
import { BuildCache, type FolderFacts, type ListedModel } from './build-cache.js';
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
  /** progress callback: files hashed so far, of total */
  progress?: (done: number, total: number, file: string) => void;
  /** Every model and source object of the new catalog, for the host's load pack (`BuildInput.onObject`). */
  onObject?: BuildInput['onObject'];
  /** The objects to derive the day's index pages from (`BuildInput.pages`: a LoadPackWriter filled through `onObject`). */
  pages?: BuildInput['pages'];
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
 * The lines of a change feed as paths under `root`: relative paths, or absolute ones under `root`; blank lines and
 * `#` comments are skipped. A path outside the tree (or with `..` segments) is a {@link ChangeFeedError}, named.
 */
export function changeFeedPaths(root: string, lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const rel = path.isAbsolute(line) ? path.relative(root, line) : line;
    const parts = rel.split(/[\\/]+/).filter((p) => p && p !== '.');
    if (parts.length === 0 || parts.includes('..') || path.isAbsolute(rel))
      throw new ChangeFeedError(`line ${i + 1} of the change feed is not a path under ${root}`);
    out.push(parts.join('/'));
  }
  return out;
}

interface Walked {
  /** file paths relative to the model folder, sorted per folder */
  files: string[];
  /** the model folder holds `.hub-facts.json` */
  hasFacts: boolean;
}

/** A model folder to index: walked now, or (a change feed did not name it) as the last build listed it. */
type Todo = { id: string; dir: string } & (({ listed?: undefined } & Walked) | { listed: ListedModel; files: string[] });

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

type FactsFile = FolderFacts;

/**
 * Optional `.hub-facts.json` in a model folder (not indexed as a file): license, pipeline_tag,
 * library_name and tags, which a bare tree cannot tell.
 */
function readFactsFile(dir: string): FactsFile {
  try {
    const raw = JSON.parse(readFileSync(path.join(dir, FACTS_FILE), 'utf8')) as FactsFile;
    const out: FactsFile = {};
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

/** Every model folder of the tree, walked (owners, then their models, by name). */
function walkedTodo(root: string): Todo[] {
  const todo: Todo[] = [];
  const owners = readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith('.'));
  for (const owner of owners.sort(byName)) {
    const names = readdirSync(path.join(root, owner.name), { withFileTypes: true }).filter((e) => e.isDirectory());
    for (const name of names.sort(byName)) {
      const dir = path.join(root, owner.name, name.name);
      todo.push({ id: `${owner.name}/${name.name}`, dir, ...walk(dir) });
    }
  }
  return todo;
}

/**
 * The model folders of the tree as a change feed tells them: the last build's folders, less the ones the feed names
 * (each named folder that is still there is walked; an owner named alone has each of its folders walked), in the
 * order {@link walkedTodo} gives. Only the named folders are listed or stat'ed.
 */
function fedTodo(root: string, cache: BuildCache, changed: readonly string[]): Todo[] {
  const listed = [...cache.listedModels()];
  if (listed.length === 0)
    throw new ChangeFeedError(
      `a change feed needs the rebuild cache of an earlier build of ${root} (its data folder's cache/from-dir.json): build once without it`,
    );
  const ids = new Set(listed);
  const named = new Set<string>();
  const owners = new Set<string>();
  for (const p of changed) {
    const [owner, name] = p.split('/') as [string, string | undefined];
    if (owner.startsWith('.')) continue; // not an owner folder (the walk skips it too)
    if (name === undefined) owners.add(owner);
    else named.add(`${owner}/${name}`);
  }
  const isDir = (dir: string) => statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;
  for (const owner of owners) {
    for (const id of listed) if (id.startsWith(`${owner}/`)) ids.delete(id);
    const dir = path.join(root, owner);
    if (isDir(dir)) for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) ids.add(`${owner}/${e.name}`);
  }
  for (const id of named) {
    if (isDir(path.join(root, id))) ids.add(id);
    else ids.delete(id);
  }
  const split = [...ids].map((id) => {
    const slash = id.indexOf('/');
    return { id, owner: id.slice(0, slash), name: id.slice(slash + 1) };
  });
  split.sort((a, b) => (a.owner !== b.owner ? (a.owner < b.owner ? -1 : 1) : a.name < b.name ? -1 : 1));
  const todo: Todo[] = [];
  for (const { id, owner, name } of split) {
    const dir = path.join(root, owner, name);
    const kept = named.has(id) || owners.has(owner) ? undefined : cache.reuseListed(id);
    if (kept) todo.push({ id, dir, listed: kept, files: kept.files.map((f) => f.path) });
    // walked: named by the feed, or its listing cannot be reused (a file changed too close to its last read); one
    // that is gone is gone from the index too
    else if (isDir(dir)) todo.push({ id, dir, ...walk(dir) });
  }
  return todo;
}

/**
 * Index a local tree laid out as `{owner}/{name}/…`: every model folder becomes a model, every file
 * is hashed with SHA-256 (streamed), the revision is derived from the listing, and each `--source`
 * is recorded as holding every file. The descriptor switches to the new catalog atomically.
 */
export async function buildFromDir(objects: ObjectStore, options: FromDirOptions): Promise<BuildResult> {
  const models: BuildModelInput[] = [];
  const root = path.resolve(options.dir);
  const cache = BuildCache.load(options.cacheFile, root);
  const todo: Todo[] = options.changed ? fedTodo(root, cache, options.changed) : walkedTodo(root);
  const total = todo.reduce((n, t) => n + t.files.length, 0);
  let done = 0;
  /** One file's record and GGUF facts: from the rebuild cache when its stamp is unchanged, else read and hashed. */
  /** A file of a folder taken as the last build listed it: its record and facts as that build hashed them. */
  const listedOne = (listed: ListedModel, k: number) => {
    const f = listed.files[k] as ListedModel['files'][number];
    return { record: { path: f.path, size: f.size, sha256: f.sha256 }, gguf: f.gguf };
  };
  const fileOne = async (t: { id: string; dir: string }, rel: string) => {
    const full = path.join(t.dir, rel);
    const key = `${t.id}/${rel}`;
    if (cache.knows(key)) {
      const stamp = stampOf(statSync(full, { bigint: true }));
      const hit = cache.lookup(key, stamp);
      if (hit) return { record: { path: rel, size: stamp.size, sha256: hit.sha256 }, gguf: hit.gguf };
    }
    const readAt = Date.now();
    const { sha256, size, stamp, head } = await hashFileStamped(full);
    let gguf: GgufFacts | null = null;
    // A small file that does not start with the GGUF magic is not parsed (the parser would refuse it anyway).
    const magic = !head || GGUF_MAGIC.every((b, i) => head[i] === b);
    if (magic && /\.gguf$/i.test(rel) && !isMmproj(rel)) gguf = (await ggufFacts(full, rel)) ?? null;
    cache.record(key, stamp, sha256, gguf, readAt);
    return { record: { path: rel, size, sha256 }, gguf };
  };
  const indexOne = async (t: Todo): Promise<BuildModelInput> => {
    const files = [];
    const gguf: GgufFacts[] = [];
    for (const [k, rel] of t.files.entries()) {
      const one = t.listed ? listedOne(t.listed, k) : await fileOne(t, rel);
      files.push(one.record);
      if (one.gguf) gguf.push(one.gguf);
      done++;
      options.progress?.(done, total, `${t.id}/${rel}`);
    }
    const first = gguf[0];
    const facts = t.listed ? t.listed.facts : t.hasFacts ? readFactsFile(t.dir) : null;
    if (!t.listed) cache.list(t.id, t.files, facts);
    const extra = facts ?? {};
    options.log?.info({ model: t.id, files: files.length }, 'indexed model');
    return {
      id: t.id,
      files,
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
  // A few models at once: big files' streamed reads and GGUF header reads overlap instead of waiting on one file at a
  // time (small files are read synchronously). Models keep the tree's order.
  for (let i = 0; i < todo.length; i += HASH_CONCURRENCY) {
    models.push(...(await Promise.all(todo.slice(i, i + HASH_CONCURRENCY).map(indexOne))));
  }
  const result = await buildIndex(objects, {
    date: options.date ?? new Date().toISOString().slice(0, 10),
    models,
    ...(options.display ? { display: options.display } : {}),
    ...(options.signers ? { signers: options.signers } : {}),
    ...(options.onObject ? { onObject: options.onObject } : {}),
    ...(options.pages ? { pages: options.pages } : {}),
  });
  // Only after the index is written: a build that failed leaves the previous cache (still true of the files).
  await cache.save(options.cacheFile);
  options.log?.info({ files: total, reused: cache.hits }, 'from-dir cache');
  return result;
}
