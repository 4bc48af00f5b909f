/**
 * `hub mirror pull|serve|verify` and `hub bundle create|import` (design 10.3): a local mirror filled through a hub with
 * every byte checked, and the day's index carried across an air gap with the mirror beside it.
 */
import { type Attempt, type ClientOptions, globToRegExp, hubCatalog, listFiles, parseRef, type RemoteFile, selectFiles } from '@hub/client';
import { type MirrorFileEvent, type MirrorModel, nodeGetBytes, nodeHasher, pullIntoMirror, verifyMirror } from '@hub/client/node';
import { formatBytes } from '@hub/core-index';
import { serveMirrorFolder } from '@hub/node-toolkit';
import { bundleCreate, bundleImport } from './bundle.js';
import {
  BUNDLE_CREATE,
  type BUNDLE_CREATE_OPTIONS,
  BUNDLE_IMPORT,
  type BUNDLE_IMPORT_OPTIONS,
  MIRROR_PULL,
  type MIRROR_PULL_OPTIONS,
  type MIRROR_SERVE_OPTIONS,
  MIRROR_VERIFY,
  type MIRROR_VERIFY_OPTIONS,
} from './cli-commands.js';
import { CliError, hubUrlOf, type Parsed, runWith, UsageError } from './cli-framework.js';
import { ProgressBars } from './progress.js';

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
export function parseSize(v: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?$/i.exec(v.trim());
  if (!m) throw new UsageError(`--max-bytes ${JSON.stringify(v)}: expected a size such as 500M or 20G`);
  return Math.floor(Number(m[1]) * (UNITS[(m[2] ?? '').toUpperCase()] ?? 1));
}

/** The models (and files) a pull takes: named ones, glob matches over model ids, or the hub's first N. */
export async function chooseModels(
  opts: ClientOptions,
  refs: string[],
  top: number | undefined,
  maxBytes: number | undefined,
  skipped: (id: string, why: string) => void,
): Promise<MirrorModel[]> {
  const { catalog } = await hubCatalog(opts.hub, opts.fetch);
  const rows = catalog.rows;
  const picks: Array<{ id: string; revision: string; quant?: string }> = [];
  const add = (id: string, revision: string, quant?: string) => {
    if (!picks.some((p) => p.id === id)) picks.push({ id, revision, ...(quant ? { quant } : {}) });
  };
  if (top !== undefined) for (const r of rows.slice(0, top)) add(r.id, r.sha);
  for (const ref of refs) {
    if (/[*?]/.test(ref)) {
      const re = globToRegExp(ref);
      const hits = rows.filter((r) => re.test(r.id));
      if (hits.length === 0) throw new CliError(`no model the hub indexes matches ${ref}`);
      for (const r of hits) add(r.id, r.sha);
      continue;
    }
    let parsed: { id: string; quant?: string };
    try {
      parsed = parseRef(ref);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const row = rows.find((r) => r.id === parsed.id);
    if (!row) throw new CliError(`${parsed.id} is not in the hub's index`);
    add(row.id, row.sha, parsed.quant);
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
function clientOptions(hub: string, io: MirrorIo, bars: ProgressBars, stallSeconds = 30) {
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
function fileReporter(io: MirrorIo) {
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

/** `hub mirror pull DIR [MODEL[:QUANT] | GLOB …] [--top N] [--max-bytes SIZE] [--hub URL] [--parallel N]` */
export async function mirrorPullRun({ values, positionals }: Parsed<typeof MIRROR_PULL_OPTIONS>, io: MirrorIo): Promise<number> {
  const [dir = '', ...refs] = positionals;
  const top = values.top === undefined ? undefined : wholeNumber('--top', values.top, 1);
  if (refs.length === 0 && top === undefined) throw new UsageError('name models (owner/name[:QUANT], a glob) or --top N');
  const maxBytes = values['max-bytes'] !== undefined ? parseSize(values['max-bytes']) : undefined;
  const parallel = wholeNumber('--parallel', values.parallel, 4);
  const stall = wholeNumber('--stall-seconds', values['stall-seconds'], 30);
  const hub = hubUrlOf(values.hub, io.env);
  const bars = new ProgressBars((l) => io.err(l));
  const opts = clientOptions(hub, io, bars, stall);
  const models = await chooseModels(opts, refs, top, maxBytes, (id, why) =>
    io.tty ? io.err(`skipped ${id}: ${why}\n`) : io.out(JSON.stringify({ event: 'skipped', model: id, reason: why })),
  );
  const report = await pullIntoMirror(opts, dir, models, { parallel, onFile: fileReporter(io) });
  if (io.tty) bars.draw();
  const failed = report.files.filter((f) => f.status === 'failed').length;
  const summary = {
    event: 'done',
    models: models.length,
    files: report.files.length,
    fetched: report.files.filter((f) => f.status === 'verified').length,
    held: report.files.filter((f) => f.status === 'held').length,
    failed,
    mirrorFiles: report.manifest.files.length,
    mirrorBytes: report.manifest.files.reduce((n, f) => n + f.size, 0),
  };
  if (io.tty)
    io.err(
      `${summary.fetched} fetched, ${summary.held} already held, ${failed} failed; the mirror holds ${summary.mirrorFiles} files (${formatBytes(summary.mirrorBytes)})\n`,
    );
  else io.out(JSON.stringify(summary));
  return failed > 0 ? 1 : 0;
}

/** `hub mirror serve DIR [--port N] [--host ADDR]`: keeps running (returns `undefined`) until SIGINT or SIGTERM. */
export async function mirrorServeRun({ values, positionals }: Parsed<typeof MIRROR_SERVE_OPTIONS>, io: MirrorIo): Promise<undefined> {
  const dir = positionals[0] ?? '';
  const port = values.port === undefined ? 8090 : Number(values.port);
  if (!/^\d+$/.test(values.port ?? '0') || port > 65535) throw new UsageError(`--port ${values.port} is not a port number`);
  const server = await serveMirrorFolder({ root: dir, port, host: values.host ?? '127.0.0.1' });
  io.err(
    `serving the mirror ${dir} at ${server.url}; a hub's source: {"name": "local-mirror", "kind": "mirror", "url": "${server.url}"}\n`,
  );
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return undefined;
}

/** `hub mirror verify DIR` */
export async function mirrorVerifyRun({ positionals }: Parsed<typeof MIRROR_VERIFY_OPTIONS>, io: MirrorIo): Promise<number> {
  const dir = positionals[0] ?? '';
  const result = await verifyMirror(dir, {
    onFile: (e) => {
      if (!io.tty) io.out(JSON.stringify({ event: 'file', ...e }));
      else if (!e.ok) io.err(`DAMAGED ${e.sha256}: its bytes hash to ${e.actual}; moved to ${e.movedTo}\n`);
    },
  });
  for (const m of result.missing) io.tty ? io.err(`MISSING ${m}\n`) : io.out(JSON.stringify({ event: 'missing', sha256: m }));
  const line = `${result.checked} files checked, ${result.damaged.length} damaged, ${result.missing.length} missing`;
  io.tty
    ? io.err(`${line}\n`)
    : io.out(JSON.stringify({ event: 'done', checked: result.checked, damaged: result.damaged.length, missing: result.missing.length }));
  return result.damaged.length > 0 || result.missing.length > 0 ? 1 : 0;
}

/** `hub bundle create OUT (MODEL… | --top N) --hub URL [--from-mirror DIR] [--max-bytes SIZE] [--parallel N]` */
export async function bundleCreateRun({ values, positionals }: Parsed<typeof BUNDLE_CREATE_OPTIONS>, io: MirrorIo): Promise<number> {
  const [out = '', ...refs] = positionals;
  const top = values.top === undefined ? undefined : wholeNumber('--top', values.top, 1);
  if (refs.length === 0 && top === undefined) throw new UsageError('name models (owner/name[:QUANT], a glob) or --top N');
  const hub = values.hub ?? io.env.HUB_URL;
  if (!hub) throw new UsageError('name the hub with --hub URL (or HUB_URL)');
  const maxBytes = values['max-bytes'] !== undefined ? parseSize(values['max-bytes']) : undefined;
  const parallel = wholeNumber('--parallel', values.parallel, 4);
  const bars = new ProgressBars((l) => io.err(l));
  const opts = clientOptions(hub, io, bars);
  const models = await chooseModels(opts, refs, top, maxBytes, (id, why) =>
    io.tty ? io.err(`skipped ${id}: ${why}\n`) : io.out(JSON.stringify({ event: 'skipped', model: id, reason: why })),
  );
  const result = await bundleCreate(opts, out, models, {
    parallel,
    onFile: fileReporter(io),
    ...(values['from-mirror'] ? { fromMirror: values['from-mirror'] } : {}),
  });
  if (io.tty) bars.draw();
  const line = { event: 'done', ...result };
  io.tty
    ? io.err(
        `bundle ${out}: ${result.objects} objects of ${result.date} (${result.catalog}), ${result.files} files, ${result.failed} failed\n`,
      )
    : io.out(JSON.stringify(line));
  return result.failed > 0 ? 1 : 0;
}

/** `hub bundle import IN --data DIR` */
export async function bundleImportRun({ values, positionals }: Parsed<typeof BUNDLE_IMPORT_OPTIONS>, io: MirrorIo): Promise<number> {
  const input = positionals[0] ?? '';
  const data = values.data ?? io.env.HUB_DATA ?? '.hub-data';
  const result = await bundleImport(input, data, {
    progress: (what) => (io.tty ? io.err(`\r\x1b[2K${what}`) : undefined),
  });
  if (io.tty) io.err('\r\x1b[2K');
  const line = { event: 'done', ...result };
  io.tty
    ? io.err(
        `imported ${result.date} (${result.catalog}): ${result.objectsNew} new objects of ${result.objects}, ${result.filesNew} new files of ${result.files}\n`,
      )
    : io.out(JSON.stringify(line));
  return 0;
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

export const mirrorPull = (argv: string[], io: MirrorIo) => runWith(MIRROR_PULL, argv, io, mirrorPullRun);
export const mirrorVerify = (argv: string[], io: MirrorIo) => runWith(MIRROR_VERIFY, argv, io, mirrorVerifyRun);
export const bundleCreateCommand = (argv: string[], io: MirrorIo) => runWith(BUNDLE_CREATE, argv, io, bundleCreateRun);
export const bundleImportCommand = (argv: string[], io: MirrorIo) => runWith(BUNDLE_IMPORT, argv, io, bundleImportRun);
