/**
 * What `hub mirror pull` and `hub bundle create` share: the one option block that chooses the models and runs the
 * pull, their first steps (the arguments read, the client options, the models chosen), how a file is reported, and
 * the terminal they write to. The client is imported when a pull runs.
 */
import type { Attempt, ClientOptions, HasherFactory, RemoteFile } from '@hub/client';
import type { MirrorFileEvent, MirrorModel } from '@hub/client/node';
import { formatBytes } from '@hub/core-index/light';
import { CliError, type OptionSpecs, UsageError, type Values } from './cli-framework.js';
import { HUB_URL } from './cli-options.js';
import { ProgressBars } from './progress.js';

/** The options of a pull, the same for a mirror and a bundle (`bundle create` adds its `--from-mirror`). */
export const PULL_OPTIONS = {
  top: { type: 'string', arg: 'N', help: "Take the hub's first N models (its browse order)." },
  'max-bytes': { type: 'string', arg: 'SIZE', help: 'Skip a model past this total (500M, 20G); smaller ones after it are taken.' },
  hub: HUB_URL,
  parallel: { type: 'string', arg: 'N', help: 'Files downloaded at once (default 4).' },
  'stall-seconds': { type: 'string', arg: 'N', help: 'Leave a source that sends nothing for this long (default 30).' },
} as const satisfies OptionSpecs;

export interface MirrorIo {
  out: (line: string) => void;
  err: (line: string) => void;
  tty: boolean;
  env: NodeJS.ProcessEnv;
}

function wholeNumber(name: string, v: string | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1) throw new UsageError(`${name} takes a whole number ≥ 1`);
  return n;
}

const UNITS: Record<string, number> = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };

/** `SIZE` as bytes: a number with an optional K, M, G or T (powers of 1024), `B` and `iB` allowed. */
function parseSize(v: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?$/i.exec(v.trim());
  if (!m) throw new UsageError(`--max-bytes ${JSON.stringify(v)}: expected a size such as 500M or 20G`);
  return Math.floor(Number(m[1]) * (UNITS[(m[2] ?? '').toUpperCase()] ?? 1));
}

interface PullArgs {
  refs: string[];
  top: number | undefined;
  maxBytes: number | undefined;
  parallel: number;
  stallSeconds: number;
  hub: string;
}

/** A pull's arguments read (`hubOf` names the hub once the models are named); a mistake is a `UsageError`. */
export function pullArgs(values: Values<typeof PULL_OPTIONS>, refs: string[], hubOf: () => string): PullArgs {
  const top = values.top === undefined ? undefined : wholeNumber('--top', values.top, 1);
  if (refs.length === 0 && top === undefined) throw new UsageError('name models (owner/name[:QUANT], a glob) or --top N');
  const hub = hubOf();
  const maxBytes = values['max-bytes'] !== undefined ? parseSize(values['max-bytes']) : undefined;
  const parallel = wholeNumber('--parallel', values.parallel, 4);
  const stallSeconds = wholeNumber('--stall-seconds', values['stall-seconds'], 30);
  return { refs, top, maxBytes, parallel, stallSeconds, hub };
}

/** The client options of a pull and the models it takes (a skipped one reported), with the progress bars. */
export async function choosePull(
  a: PullArgs,
  io: MirrorIo,
): Promise<{ bars: ProgressBars; opts: ClientOptions & { hasher: HasherFactory }; models: MirrorModel[] }> {
  const bars = new ProgressBars((l) => io.err(l));
  const opts = await clientOptions(a.hub, io, bars, a.stallSeconds);
  const models = await chooseModels(opts, a.refs, a.top, a.maxBytes, (id, why) =>
    io.tty ? io.err(`skipped ${id}: ${why}\n`) : io.out(JSON.stringify({ event: 'skipped', model: id, reason: why })),
  );
  return { bars, opts, models };
}

/** The models (and files) a pull takes: named ones, glob matches over model ids, or the hub's first N. */
async function chooseModels(
  opts: ClientOptions,
  refs: string[],
  top: number | undefined,
  maxBytes: number | undefined,
  skipped: (id: string, why: string) => void,
): Promise<MirrorModel[]> {
  const { catalogRows, globToRegExp, hubCatalogRoot, listFiles, parseRef, selectFiles } = await import('@hub/client');
  // The catalog's rows are read once, a shard at a time (a catalog of millions of models is never held whole); only
  // the rows picked are kept, then put in the order asked: the first N, then each name or glob in turn.
  type Named = { ref: string; hits: Array<{ id: string; sha: string }> } & ({ glob: RegExp } | { id: string; quant?: string });
  const named = refs.map((ref): Named => {
    if (/[*?]/.test(ref)) return { ref, glob: globToRegExp(ref), hits: [] };
    try {
      return { ref, ...parseRef(ref), hits: [] };
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  });
  const first: Array<{ id: string; sha: string }> = [];
  const { root } = await hubCatalogRoot(opts.hub, opts.fetch);
  for await (const r of catalogRows(opts.hub, root, opts.fetch)) {
    if (top !== undefined && first.length < top) first.push({ id: r.id, sha: r.sha });
    for (const n of named)
      if ('glob' in n ? n.glob.test(r.id) : n.id === r.id && n.hits.length === 0) n.hits.push({ id: r.id, sha: r.sha });
    if (named.length === 0 && first.length === top) break;
  }
  const picks: Array<{ id: string; revision: string; quant?: string }> = [];
  const add = (id: string, revision: string, quant?: string) => {
    if (!picks.some((p) => p.id === id)) picks.push({ id, revision, ...(quant ? { quant } : {}) });
  };
  for (const r of first) add(r.id, r.sha);
  for (const n of named) {
    if ('glob' in n) {
      if (n.hits.length === 0) throw new CliError(`no model the hub indexes matches ${n.ref}`);
      for (const r of n.hits) add(r.id, r.sha);
      continue;
    }
    const row = n.hits[0];
    if (!row) throw new CliError(`${n.id} is not in the hub's index`);
    add(row.id, row.sha, n.quant);
  }
  const out: MirrorModel[] = [];
  const counted = new Set<string>();
  let total = 0;
  for (const p of picks) {
    const files: RemoteFile[] = selectFiles(await listFiles(opts, p.id, p.revision), [], p.quant);
    const extra = files.filter((f) => !counted.has(f.sha256)).reduce((n, f) => n + f.size, 0);
    if (maxBytes !== undefined && total + extra > maxBytes) {
      skipped(p.id, `${formatBytes(extra)} more would pass --max-bytes ${formatBytes(maxBytes)}`);
      continue;
    }
    total += extra;
    for (const f of files) counted.add(f.sha256);
    out.push({ id: p.id, revision: p.revision, files });
  }
  return out;
}

/** The client options of the mirror commands: node:http bytes, node:crypto hashing, progress on a terminal. */
async function clientOptions(hub: string, io: MirrorIo, bars: ProgressBars, stallSeconds: number) {
  const { nodeGetBytes, nodeHasher } = await import('@hub/client/node');
  return {
    hub,
    hasher: nodeHasher,
    getBytes: nodeGetBytes,
    stallSeconds,
    onAttempt: (a: Attempt) => {
      if (!io.tty && a.outcome !== 'verified') io.out(JSON.stringify({ event: 'attempt', ...a }));
    },
    onProgress: (p: { file: string; source: string; received: number; size: number }) => {
      if (io.tty) bars.update(p);
    },
  };
}

/** Report one file of a pull: a JSON line off a terminal, a line under the bars on one. */
export function fileReporter(io: MirrorIo) {
  return (e: MirrorFileEvent) => {
    const line = {
      event: 'file',
      status: e.status,
      model: e.model,
      path: e.path,
      sha256: e.sha256,
      size: e.size,
      resumedFrom: e.resumedFrom,
      source: e.source ?? null,
    };
    if (!io.tty) io.out(JSON.stringify(line));
    else if (e.status !== 'verified') io.err(`${e.status === 'held' ? 'held    ' : 'FAILED  '} ${e.model}/${e.path}\n`);
  };
}

/** The process's terminal, one line per call. */
export function processMirrorIo(): MirrorIo {
  return {
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(l),
    tty: !!process.stderr.isTTY,
    env: process.env,
  };
}
