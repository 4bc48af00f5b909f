/**
 * `hub mirror pull|serve|verify` and `hub bundle create|import` (design 10.3): a local mirror filled through a hub with
 * every byte checked, and the day's index carried across an air gap with the mirror beside it.
 */
import type { Attempt, ClientOptions, RemoteFile } from '@hub/client';
import type { MirrorFileEvent, MirrorModel } from '@hub/client/node';
import { formatBytes } from '@hub/core-index/light';
import { CliError, command, hubUrlOf, type OptionSpecs, type Parsed, runWith, UsageError } from './cli-framework.js';
import { DATA, HUB_URL } from './cli-options.js';
import { ProgressBars } from './progress.js';

const PULL_CHOICE = {
  top: { type: 'string', arg: 'N', help: "Take the hub's first N models (its browse order)." },
  'max-bytes': { type: 'string', arg: 'SIZE', help: 'Skip a model past this total (500M, 20G); smaller ones after it are taken.' },
  hub: HUB_URL,
  parallel: { type: 'string', arg: 'N', help: 'Files downloaded at once (default 4).' },
} as const satisfies OptionSpecs;

export const MIRROR_PULL_OPTIONS = {
  ...PULL_CHOICE,
  'stall-seconds': { type: 'string', arg: 'N', help: 'Leave a source that sends nothing for this long (default 30).' },
} as const satisfies OptionSpecs;

export const MIRROR_PULL = command({
  name: 'mirror pull',
  interrupted: 'Verified files and cut files are kept: run the same command again to resume (with Range).',
  summary: "Fill a local mirror with models' files through the hub, each checked and stored once by SHA-256.",
  usage: ['DIR [MODEL[:QUANT] | GLOB …] [--top N] [--max-bytes SIZE] [--hub URL] [--parallel N]'],
  description: `Fill DIR with models' files through the hub, each checked against the index's SHA-256 and stored
once by it (DIR/sha256/<hex>), with DIR/manifest.json saying what it holds. Run it again after an
interruption: verified files are kept, a cut file resumes with Range. GLOB matches model ids (org/*).
Progress bars on a terminal, JSON lines otherwise. Exit 1 when a file could not be verified.`,
  options: MIRROR_PULL_OPTIONS,
  positionals: { min: 1, max: Number.POSITIVE_INFINITY, name: 'the mirror folder (DIR)' },
  run: (args) => mirrorPullRun(args, processMirrorIo()),
});

export const MIRROR_SERVE_OPTIONS = {
  port: { type: 'string', arg: 'N', help: 'The port (default 8090).' },
  host: { type: 'string', arg: 'ADDR', help: 'The address to listen on (default 127.0.0.1).' },
} as const satisfies OptionSpecs;

export const MIRROR_SERVE = command({
  name: 'mirror serve',
  summary: 'Serve a mirror folder (manifest.json, sha256/<hex>, with Range) for a hub.',
  usage: ['DIR [--port N] [--host ADDR]'],
  description: `Serve a mirror folder as any static web server would (Range, ETag, CORS), for a hub's source
{"name": "local-mirror", "kind": "mirror", "url": "http://HOST:PORT/"}. Runs until interrupted.`,
  options: MIRROR_SERVE_OPTIONS,
  positionals: { min: 1, max: 1, name: 'the mirror folder (DIR)' },
  run: (args) => mirrorServeRun(args, processMirrorIo()),
});

export const MIRROR_VERIFY_OPTIONS = {} as const satisfies OptionSpecs;

export const MIRROR_VERIFY = command({
  name: 'mirror verify',
  summary: 'Re-hash every file of a mirror; move a damaged one aside.',
  usage: ['DIR'],
  description: `Re-hash every file of a mirror folder against its name; a damaged one is moved to DIR/damaged/
and leaves the manifest, which records when the mirror was verified. Exit 1 if a file was damaged or missing.`,
  options: MIRROR_VERIFY_OPTIONS,
  positionals: { min: 1, max: 1, name: 'the mirror folder (DIR)' },
  run: (args) => mirrorVerifyRun(args, processMirrorIo()),
});

export const BUNDLE_CREATE_OPTIONS = {
  ...PULL_CHOICE,
  'from-mirror': { type: 'string', arg: 'DIR', help: 'Take files already in this mirror (each re-hashed) instead of downloading them.' },
} as const satisfies OptionSpecs;

export const BUNDLE_CREATE = command({
  name: 'bundle create',
  interrupted: 'What is written is kept (bundle.json comes last): run the same command again to resume.',
  summary: "Write the hub's index (as published) and a mirror of chosen models, to carry across an air gap.",
  usage: ['OUT (MODEL[:QUANT]… | --top N) --hub URL [--from-mirror DIR] [--max-bytes SIZE] [--parallel N]'],
  description: `Write OUT: the hub's index objects exactly as published (same addresses, earlier days included),
its archive, and a mirror of the chosen models' files (OUT/mirror). Resumable; OUT/bundle.json is
written last. Carry OUT to a network that cannot reach the hub and run "hub bundle import" there.`,
  options: BUNDLE_CREATE_OPTIONS,
  positionals: { min: 1, max: Number.POSITIVE_INFINITY, name: 'the bundle folder (OUT)' },
  run: (args) => bundleCreateRun(args, processMirrorIo()),
});

export const BUNDLE_IMPORT_OPTIONS = { data: DATA } as const satisfies OptionSpecs;

export const BUNDLE_IMPORT = command({
  name: 'bundle import',
  summary: 'Check every object and file of a bundle, then take it into a data folder.',
  usage: ['IN --data DIR'],
  description: `Check every object of a bundle against its BLAKE3 address and every file against its SHA-256, then
put them into DIR (objects, DIR/mirror) and switch DIR to the bundle's day. A later day's bundle imports
on top. "hub serve --data DIR" then serves that index and the mirror (on the next port), and redirects
to nothing else unless the config names it (airGapped).`,
  options: BUNDLE_IMPORT_OPTIONS,
  positionals: { min: 1, max: 1, name: 'the bundle folder (IN)' },
  run: (args) => bundleImportRun(args, processMirrorIo()),
});

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
  const { globToRegExp, hubCatalog, listFiles, parseRef, selectFiles } = await import('@hub/client');
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
async function clientOptions(hub: string, io: MirrorIo, bars: ProgressBars, stallSeconds = 30) {
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
  const opts = await clientOptions(hub, io, bars, stall);
  const models = await chooseModels(opts, refs, top, maxBytes, (id, why) =>
    io.tty ? io.err(`skipped ${id}: ${why}\n`) : io.out(JSON.stringify({ event: 'skipped', model: id, reason: why })),
  );
  const { pullIntoMirror } = await import('@hub/client/node');
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
  const { serveMirrorFolder } = await import('@hub/node-toolkit');
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
  const { verifyMirror } = await import('@hub/client/node');
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
  const opts = await clientOptions(hub, io, bars);
  const models = await chooseModels(opts, refs, top, maxBytes, (id, why) =>
    io.tty ? io.err(`skipped ${id}: ${why}\n`) : io.out(JSON.stringify({ event: 'skipped', model: id, reason: why })),
  );
  const { bundleCreate } = await import('./bundle.js');
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
  const { bundleImport } = await import('./bundle.js');
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
