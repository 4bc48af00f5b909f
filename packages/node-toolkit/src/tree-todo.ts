// The model folders of a tree as a build takes them, in walk order: every folder walked, or as a change feed tells.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type BuildCache, type CachedFile, type CachedModel, type CachedRow, type FolderFacts, rowsOf, wholeRows } from './build-cache.js';

/** The optional facts file of a model folder (not indexed as a file). */
const FACTS_FILE = '.hub-facts.json';

/** A change feed that cannot be used: no rebuild cache of this tree, or a path that is not under it. */
export class ChangeFeedError extends Error {}

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

/**
 * Optional `.hub-facts.json` in a model folder (not indexed as a file): license, pipeline_tag,
 * library_name and tags, which a bare tree cannot tell.
 */
export function readFolderFacts(dir: string): FolderFacts {
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

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : 1);

/** Whether folder `a` comes before folder `b` in walk order (owners by name, then their models by name). */
function walksBefore(a: string, b: string): boolean {
  const [sa, sb] = [a.indexOf('/'), b.indexOf('/')];
  const [oa, ob] = [a.slice(0, sa), b.slice(0, sb)];
  return oa !== ob ? oa < ob : a.slice(sa + 1) < b.slice(sb + 1);
}

/** A model folder to index: walked now (with the last build's rows to look its files up in), or taken as listed. */
export type Todo = { id: string; dir: string } & (
  | {
      files: string[];
      hasFacts: boolean;
      rows: ((rel: string) => CachedRow | undefined) | undefined;
      /** the last build's line of this folder, when the cache has it: parsed, and its text */
      last?: { model: CachedModel; text: string } | undefined;
      listed?: undefined;
    }
  | { listed: CachedModel; whole: Array<CachedFile & { path: string }>; text: string }
);

/** Every model folder of the tree, walked in order (owners, then their models, by name); one owner's names held at a time. */
export function* walkedTodo(root: string, cache: BuildCache): Generator<Todo> {
  const owners = readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith('.'));
  for (const owner of owners.sort(byName)) {
    const names = readdirSync(path.join(root, owner.name), { withFileTypes: true }).filter((e) => e.isDirectory());
    for (const name of names.sort(byName)) {
      const id = `${owner.name}/${name.name}`;
      const dir = path.join(root, owner.name, name.name);
      const last = cache.model(id, walksBefore);
      yield { id, dir, ...walk(dir), rows: last?.rows, last: last?.line && last.text ? { model: last.line, text: last.text } : undefined };
    }
  }
}

/**
 * The model folders of the tree as a change feed tells them: the last build's folders in turn (from the cache, in
 * walk order), each one the feed names walked again (or gone, when it is), the others taken as listed; and, merged in
 * order, the folders the feed names that the last build did not have (an owner named alone: each of its folders).
 * Only what the feed names is listed or stat'ed.
 */
export function* fedTodo(root: string, cache: BuildCache, changed: readonly string[]): Generator<Todo> {
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
  const walked = (id: string, last: { model: CachedModel; text: string } | undefined): Todo => {
    const dir = path.join(root, id);
    return { id, dir, ...walk(dir), rows: last ? rowsOf(last.model) : undefined, last };
  };
  for (let line = cache.nextModel(); line; line = cache.nextModel()) {
    const m = line.model;
    const id = m[0];
    for (; f < fresh.length && walksBefore(fresh[f] as string, id); f++) yield walked(fresh[f] as string, undefined);
    if (fresh[f] === id) f++;
    if (named.has(id) || owners.has(id.slice(0, id.indexOf('/')))) {
      if (there.has(id)) yield walked(id, line);
      continue;
    }
    const whole = wholeRows(m);
    // a folder with a file that kept no hash (changed too close to its read) is walked again; one gone is gone
    if (whole) yield { id, dir: path.join(root, id), listed: m, whole, text: line.text };
    else if (isDir(path.join(root, id))) yield walked(id, line);
  }
  for (; f < fresh.length; f++) yield walked(fresh[f] as string, undefined);
}
