/**
 * A local mirror on disk (design 10.3): `sha256/<hex>` holds each verified file once, `manifest.json` says what the
 * folder holds. Bytes arrive in `.partial/<hex>` (kept across a kill, resumed with `Range`) and are renamed into
 * `sha256/` only after their SHA-256 matched the hub's index, so nothing unverified is ever at a final path.
 * `verifyMirror` re-hashes every held file and moves a damaged one to `damaged/`.
 */
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { boundedAll, MIRROR_FORMAT, MIRROR_MANIFEST, type MirrorManifest, mirrorFilePath, parseMirrorManifest } from '@hub/core-index';
import { type Attempt, type ClientOptions, downloadFile, type Hasher, liveSources, type RemoteFile, type Sink } from '../download.js';
import { readFileChunks, sha256File } from './transfer.js';

const HEX64 = /^[0-9a-f]{64}$/;

export interface MirrorModel {
  id: string;
  revision: string;
  files: RemoteFile[];
}

/** One file's outcome in a pull. */
export interface MirrorFileEvent {
  sha256: string;
  size: number;
  /** the first model and path it was wanted for */
  model: string;
  path: string;
  /** `held`: already in the mirror, not downloaded; `verified`: downloaded and checked now; `failed`: no source gave it */
  status: 'held' | 'verified' | 'failed';
  /** bytes kept from an earlier, interrupted run (fetched with `Range` from there) */
  resumedFrom: number;
  source?: string;
  attempts: Attempt[];
}

export interface PullReport {
  files: MirrorFileEvent[];
  manifest: MirrorManifest;
}

/** Read the manifest of a mirror folder (undefined when it has none). Throws on an unreadable one. */
export async function readMirrorManifest(dir: string): Promise<MirrorManifest | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, MIRROR_MANIFEST), 'utf8');
  } catch {
    return undefined;
  }
  return parseMirrorManifest(text);
}

async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temp, `${JSON.stringify(value, null, 1)}\n`);
  await rename(temp, file);
}

/** Every held file (`sha256/<hex>`) with its size on disk. */
export async function heldFiles(dir: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let names: string[];
  try {
    names = await readdir(join(dir, 'sha256'));
  } catch {
    return out;
  }
  for (const n of names.sort()) {
    if (!HEX64.test(n)) continue;
    const s = await stat(join(dir, 'sha256', n)).catch(() => undefined);
    if (s?.isFile()) out.set(n, s.size);
  }
  return out;
}

/**
 * Write the manifest from what the folder holds: every file under `sha256/`, the models (earlier ones kept, `models`
 * replacing the same id and revision), each listing only paths whose bytes are held.
 */
export async function writeMirrorManifest(
  dir: string,
  options: { models?: MirrorModel[]; verified?: string | null; now?: () => number } = {},
): Promise<MirrorManifest> {
  const held = await heldFiles(dir);
  const before = await readMirrorManifest(dir).catch(() => undefined);
  const byKey = new Map<string, MirrorManifest['models'][number]>();
  for (const m of before?.models ?? []) byKey.set(`${m.id}@${m.revision}`, m);
  for (const m of options.models ?? []) {
    byKey.set(`${m.id}@${m.revision}`, {
      id: m.id,
      revision: m.revision,
      files: m.files.map((f) => ({ path: f.path, sha256: f.sha256, size: f.size })),
    });
  }
  const models = [...byKey.values()]
    .map((m) => ({ ...m, files: m.files.filter((f) => held.get(f.sha256) === f.size) }))
    .filter((m) => m.files.length > 0)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.revision < b.revision ? -1 : 1));
  const manifest: MirrorManifest = {
    format: MIRROR_FORMAT,
    updated: new Date((options.now ?? Date.now)()).toISOString(),
    verified: options.verified !== undefined ? options.verified : (before?.verified ?? null),
    files: [...held].map(([sha256, size]) => ({ sha256, size })),
    models,
  };
  await writeJsonAtomic(join(dir, MIRROR_MANIFEST), manifest);
  return manifest;
}

/** SHA-256 of a file's first `length` bytes, into a fresh hasher (the resume point of a partial file). */
async function hashPrefix(file: string, length: number, hasher: Hasher): Promise<void> {
  if (length === 0) return;
  await readFileChunks(file, (c) => hasher.update(c), length);
}

/** A sink appending to `.partial/<hex>`; `commit(true)` renames it to `sha256/<hex>`, `commit(false)` keeps it to resume. */
async function partialSink(dir: string, sha256: string): Promise<Sink & { commit(ok: boolean): Promise<void> }> {
  const part = join(dir, '.partial', sha256);
  let fh = await open(part, 'a');
  return {
    write: async (c) => {
      await fh.write(c);
    },
    truncate: async () => {
      await fh.truncate(0);
    },
    commit: async (ok) => {
      if (ok) await fh.sync();
      await fh.close();
      fh = undefined as never;
      if (ok) await rename(part, join(dir, mirrorFilePath(sha256)));
    },
  };
}

/**
 * Pull models' files into the mirror folder through a hub (every byte checked against the index's SHA-256 by
 * @hub/client): each distinct SHA-256 once, held files not fetched again, a kept partial file resumed with `Range`.
 * The manifest is rewritten after each verified file, so a killed pull leaves a true manifest.
 */
export async function pullIntoMirror(
  opts: ClientOptions & { hasher: NonNullable<ClientOptions['hasher']> },
  dir: string,
  models: MirrorModel[],
  options: { parallel?: number; onFile?: (e: MirrorFileEvent) => void; now?: () => number } = {},
): Promise<PullReport> {
  await mkdir(join(dir, 'sha256'), { recursive: true });
  await mkdir(join(dir, '.partial'), { recursive: true });
  const held = await heldFiles(dir);
  const wanted = new Map<string, { model: MirrorModel; file: RemoteFile }>();
  for (const m of models) for (const f of m.files) if (!wanted.has(f.sha256)) wanted.set(f.sha256, { model: m, file: f });
  const sources = await liveSources(opts);
  let writing: Promise<unknown> = Promise.resolve();
  const saveManifest = () => {
    writing = writing.then(() => writeMirrorManifest(dir, { models, ...(options.now ? { now: options.now } : {}) }));
    return writing;
  };
  const events = await boundedAll([...wanted.values()], Math.max(1, options.parallel ?? 4), async ({ model, file }) => {
    const base = { sha256: file.sha256, size: file.size, model: model.id, path: file.path };
    if (held.get(file.sha256) === file.size) {
      const e: MirrorFileEvent = { ...base, status: 'held', resumedFrom: 0, attempts: [] };
      options.onFile?.(e);
      return e;
    }
    if (held.has(file.sha256)) await moveAside(dir, file.sha256, 'size');
    const part = join(dir, '.partial', file.sha256);
    let offset = (await stat(part).catch(() => undefined))?.size ?? 0;
    if (offset > file.size) {
      await rm(part, { force: true });
      offset = 0;
    }
    const hasher = opts.hasher();
    await hashPrefix(part, offset, hasher);
    const sink = await partialSink(dir, file.sha256);
    let result: { ok: boolean; source?: string; attempts: Attempt[] };
    if (offset === file.size && hasher.digest() === file.sha256) {
      // the whole file arrived before the kill; it only missed its rename
      result = { ok: true, source: 'partial', attempts: [] };
    } else {
      if (offset === file.size) {
        await sink.truncate();
        offset = 0;
      }
      try {
        result = await downloadFile(opts, model.id, model.revision, file, sink, sources, offset > 0 ? { offset, hasher } : undefined);
      } catch (err) {
        await sink.commit(false);
        throw err;
      }
    }
    await sink.commit(result.ok);
    const e: MirrorFileEvent = {
      ...base,
      status: result.ok ? 'verified' : 'failed',
      resumedFrom: offset,
      ...(result.source ? { source: result.source } : {}),
      attempts: result.attempts,
    };
    if (result.ok) await saveManifest();
    options.onFile?.(e);
    return e;
  });
  await saveManifest();
  await writing;
  const manifest = (await readMirrorManifest(dir)) as MirrorManifest;
  return { files: events, manifest };
}

async function moveAside(dir: string, sha256: string, why: string): Promise<string> {
  await mkdir(join(dir, 'damaged'), { recursive: true });
  const to = join(dir, 'damaged', `${sha256}.${why}.${new Date().toISOString().replace(/[:.]/g, '-')}`);
  await rename(join(dir, mirrorFilePath(sha256)), to);
  return to;
}

export interface VerifyEvent {
  sha256: string;
  size: number;
  ok: boolean;
  /** the SHA-256 the bytes have, when they do not match their name */
  actual?: string;
  /** where a damaged file was moved */
  movedTo?: string;
}

/**
 * Re-hash every held file; one whose bytes do not hash to its name is moved to `damaged/` (and so leaves the
 * manifest, which is rewritten with `verified` set to now). Files the manifest listed but the folder lacks are named.
 */
export async function verifyMirror(
  dir: string,
  options: { onFile?: (e: VerifyEvent) => void; now?: () => number } = {},
): Promise<{ checked: number; damaged: VerifyEvent[]; missing: string[]; manifest: MirrorManifest }> {
  const now = options.now ?? Date.now;
  const before = await readMirrorManifest(dir);
  const held = await heldFiles(dir);
  const damaged: VerifyEvent[] = [];
  for (const [sha256, size] of held) {
    const actual = await sha256File(join(dir, mirrorFilePath(sha256)));
    const e: VerifyEvent = { sha256, size, ok: actual === sha256 };
    if (!e.ok) {
      e.actual = actual;
      e.movedTo = await moveAside(dir, sha256, 'mismatch');
      damaged.push(e);
    }
    options.onFile?.(e);
  }
  const missing = (before?.files ?? []).filter((f) => !held.has(f.sha256)).map((f) => f.sha256);
  const manifest = await writeMirrorManifest(dir, { verified: new Date(now()).toISOString(), now });
  return { checked: held.size, damaged, missing, manifest };
}
