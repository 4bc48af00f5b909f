/**
 * `hub mirror pull|serve|verify` and `hub bundle create|import` (design 10.3): a local mirror filled through a hub with
 * every byte checked, and the day's index carried across an air gap with the mirror beside it.
 */
import { parseArgs } from 'node:util';
import { type Attempt, type ClientOptions, globToRegExp, hubCatalog, listFiles, parseRef, type RemoteFile, selectFiles } from '@hub/client';
import { type MirrorFileEvent, type MirrorModel, nodeGetBytes, nodeHasher, pullIntoMirror, verifyMirror } from '@hub/client/node';
import { formatBytes } from '@hub/core-index';
import { serveMirrorFolder } from '@hub/node-toolkit';
import { bundleCreate, bundleImport } from './bundle.js';
import { ProgressBars } from './progress.js';

export const MIRROR_HELP = `  hub mirror pull DIR [MODEL[:QUANT] | GLOB …] [--top N] [--max-bytes SIZE] [--hub URL] [--parallel N]
      Fill DIR with models' files through the hub, each checked against the index's SHA-256 and stored
      once by it (DIR/sha256/<hex>), with DIR/manifest.json saying what it holds. Run it again after an
      interruption: verified files are kept, a cut file resumes with Range. GLOB matches model ids
      (org/*); --top N takes the hub's first N models; --max-bytes (e.g. 20G) caps the total.
  hub mirror serve DIR [--port N] [--host ADDR]
      Serve a mirror folder (manifest.json, sha256/<hex>, with Range) for a hub's "mirror" source.
  hub mirror verify DIR
      Re-hash every file of a mirror folder; a damaged one is moved to DIR/damaged/. Exit 1 if any was.
  hub bundle create OUT (MODEL… | --top N) --hub URL [--max-bytes SIZE] [--parallel N]
      Write OUT: the hub's index objects as published (same addresses, earlier days included) and a
      mirror of the chosen models' files, to carry to a network that cannot reach the hub.
  hub bundle import IN --data DIR
      Check every object and file of a bundle, then take them into DIR (on top of an earlier bundle);
      "hub serve --data DIR" then serves that index and the bundle's mirror (on the next port).
`;

export class UsageError extends Error {}

export interface MirrorIo {
  out: (line: string) => void;
  err: (line: string) => void;
  tty: boolean;
  env: NodeJS.ProcessEnv;
  /** resolves when the command should stop (serve), default never */
  until?: Promise<void>;
}

type Values = Record<string, string | boolean | undefined>;

function parse(argv: string[], options: Record<string, { type: 'string' | 'boolean' }>): { values: Values; positionals: string[] } {
  try {
    const r = parseArgs({ args: argv, allowPositionals: true, options: { ...options, help: { type: 'boolean' } } });
    return { values: r.values as Values, positionals: r.positionals };
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

function wholeNumber(name: string, v: unknown, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (typeof v !== 'string' || !/^\d+$/.test(v) || n < 1) throw new UsageError(`${name} takes a whole number ≥ 1`);
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
      if (hits.length === 0) throw new UsageError(`no model the hub indexes matches ${ref}`);
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
    if (!row) throw new UsageError(`${parsed.id} is not in the hub's index`);
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

export async function mirrorPull(argv: string[], io: MirrorIo): Promise<number> {
  const { values, positionals } = parse(argv, {
    top: { type: 'string' },
    'max-bytes': { type: 'string' },
    hub: { type: 'string' },
    parallel: { type: 'string' },
    'stall-seconds': { type: 'string' },
  });
  if (values.help) return help(io);
  const [dir, ...refs] = positionals;
  if (!dir) throw new UsageError('mirror pull needs a folder: hub mirror pull DIR [MODEL…] [--top N]');
  const top = values.top === undefined ? undefined : wholeNumber('--top', values.top, 1);
  if (refs.length === 0 && top === undefined) throw new UsageError('mirror pull needs models (owner/name, a glob) or --top N');
  const maxBytes = typeof values['max-bytes'] === 'string' ? parseSize(values['max-bytes']) : undefined;
  const parallel = wholeNumber('--parallel', values.parallel, 4);
  const stall = wholeNumber('--stall-seconds', values['stall-seconds'], 30);
  const hub = (values.hub as string | undefined) ?? io.env.HUB_URL ?? 'http://localhost:8080';
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

export async function mirrorServe(argv: string[], io: MirrorIo): Promise<number> {
  const { values, positionals } = parse(argv, { port: { type: 'string' }, host: { type: 'string' } });
  if (values.help) return help(io);
  const dir = positionals[0];
  if (!dir || positionals.length > 1) throw new UsageError('mirror serve takes one folder: hub mirror serve DIR [--port N]');
  const port = values.port === undefined ? 8090 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port ${values.port} is not a port number`);
  const server = await serveMirrorFolder({ root: dir, port, host: (values.host as string | undefined) ?? '127.0.0.1' });
  io.err(
    `serving the mirror ${dir} at ${server.url} (source config: {"name": "local-mirror", "kind": "mirror", "url": "${server.url}"})\n`,
  );
  await (io.until ?? new Promise<void>(() => {}));
  await server.close();
  return 0;
}

export async function mirrorVerify(argv: string[], io: MirrorIo): Promise<number> {
  const { values, positionals } = parse(argv, {});
  if (values.help) return help(io);
  const dir = positionals[0];
  if (!dir || positionals.length > 1) throw new UsageError('mirror verify takes one folder: hub mirror verify DIR');
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

export async function bundleCreateCommand(argv: string[], io: MirrorIo): Promise<number> {
  const { values, positionals } = parse(argv, {
    top: { type: 'string' },
    'max-bytes': { type: 'string' },
    hub: { type: 'string' },
    parallel: { type: 'string' },
  });
  if (values.help) return help(io);
  const [out, ...refs] = positionals;
  if (!out) throw new UsageError('bundle create needs a folder: hub bundle create OUT (MODEL… | --top N) --hub URL');
  const top = values.top === undefined ? undefined : wholeNumber('--top', values.top, 1);
  if (refs.length === 0 && top === undefined) throw new UsageError('bundle create needs models (owner/name, a glob) or --top N');
  const hub = (values.hub as string | undefined) ?? io.env.HUB_URL;
  if (!hub) throw new UsageError('bundle create needs --hub URL (or HUB_URL)');
  const maxBytes = typeof values['max-bytes'] === 'string' ? parseSize(values['max-bytes']) : undefined;
  const parallel = wholeNumber('--parallel', values.parallel, 4);
  const bars = new ProgressBars((l) => io.err(l));
  const opts = clientOptions(hub, io, bars);
  const models = await chooseModels(opts, refs, top, maxBytes, (id, why) =>
    io.tty ? io.err(`skipped ${id}: ${why}\n`) : io.out(JSON.stringify({ event: 'skipped', model: id, reason: why })),
  );
  const result = await bundleCreate(opts, out, models, { parallel, onFile: fileReporter(io) });
  if (io.tty) bars.draw();
  const line = {
    event: 'done',
    catalog: result.catalog,
    date: result.date,
    objects: result.objects,
    files: result.files,
    failed: result.failed,
  };
  io.tty
    ? io.err(
        `bundle ${out}: ${result.objects} objects of ${result.date} (${result.catalog}), ${result.files} files, ${result.failed} failed\n`,
      )
    : io.out(JSON.stringify(line));
  return result.failed > 0 ? 1 : 0;
}

export async function bundleImportCommand(argv: string[], io: MirrorIo): Promise<number> {
  const { values, positionals } = parse(argv, { data: { type: 'string' } });
  if (values.help) return help(io);
  const input = positionals[0];
  if (!input || positionals.length > 1) throw new UsageError('bundle import takes one bundle folder: hub bundle import IN --data DIR');
  const data = (values.data as string | undefined) ?? io.env.HUB_DATA ?? '.hub-data';
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

function help(io: MirrorIo): number {
  io.out(`Usage:\n${MIRROR_HELP}`);
  return 0;
}

/** `hub mirror …` / `hub bundle …` on the process's terminal; returns the exit code (2 for a usage mistake). */
export async function runMirrorCommand(command: 'mirror' | 'bundle', argv: string[]): Promise<number> {
  const io: MirrorIo = {
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(l),
    tty: !!process.stderr.isTTY,
    env: process.env,
  };
  const [sub, ...rest] = argv;
  const table: Record<string, (a: string[], io: MirrorIo) => Promise<number>> =
    command === 'mirror'
      ? { pull: mirrorPull, serve: mirrorServe, verify: mirrorVerify }
      : { create: bundleCreateCommand, import: bundleImportCommand };
  if (sub === '--help' || sub === '-h' || sub === undefined) return help(io);
  const run = table[sub];
  try {
    if (!run) throw new UsageError(`unknown command "${command} ${sub}"; see hub ${command} --help`);
    if (command === 'mirror' && sub === 'serve') {
      io.until = new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
    }
    return await run(rest, io);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    process.stderr.write(`hub ${command}: ${message.split('\n')[0]}\n`);
    return e instanceof UsageError ? 2 : 1;
  }
}
