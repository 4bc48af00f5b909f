/**
 * `hub mirror pull|serve|verify` (design 10.3): a local mirror filled through a hub with every byte checked, served,
 * and re-hashed. The options, the commands and their code; the client and the folder server are imported when a
 * command runs.
 */
import { formatBytes } from '@hub/core-index/light';
import { command, hubUrlOf, type OptionSpecs, type Parsed, runWith, UsageError } from './cli-framework.js';
import { choosePull, fileReporter, type MirrorIo, PULL_OPTIONS, processMirrorIo, pullArgs } from './pull-choice.js';

export const MIRROR_PULL = command({
  name: 'mirror pull',
  interrupted: 'Verified files and cut files are kept: run the same command again to resume (with Range).',
  summary: "Fill a local mirror with models' files through the hub, each checked and stored once by SHA-256.",
  usage: ['DIR [MODEL[:QUANT] | GLOB …] [--top N] [--max-bytes SIZE] [--hub URL] [--parallel N]'],
  description: `Fill DIR with models' files through the hub, each checked against the index's SHA-256 and stored
once by it (DIR/sha256/<hex>), with DIR/manifest.json saying what it holds. Run it again after an
interruption: verified files are kept, a cut file resumes with Range. GLOB matches model ids (org/*).
Progress bars on a terminal, JSON lines otherwise. Exit 1 when a file could not be verified.`,
  options: PULL_OPTIONS,
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

/** `hub mirror pull DIR [MODEL[:QUANT] | GLOB …] [--top N] [--max-bytes SIZE] [--hub URL] [--parallel N]` */
async function mirrorPullRun({ values, positionals }: Parsed<typeof PULL_OPTIONS>, io: MirrorIo): Promise<number> {
  const [dir = '', ...refs] = positionals;
  const args = pullArgs(values, refs, () => hubUrlOf(values.hub, io.env));
  const { bars, opts, models } = await choosePull(args, io);
  const { pullIntoMirror } = await import('@hub/client/node');
  const report = await pullIntoMirror(opts, dir, models, { parallel: args.parallel, onFile: fileReporter(io) });
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
async function mirrorServeRun({ values, positionals }: Parsed<typeof MIRROR_SERVE_OPTIONS>, io: MirrorIo): Promise<undefined> {
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
async function mirrorVerifyRun({ positionals }: Parsed<typeof MIRROR_VERIFY_OPTIONS>, io: MirrorIo): Promise<number> {
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

export const mirrorPull = (argv: string[], io: MirrorIo) => runWith(MIRROR_PULL, argv, io, mirrorPullRun);
export const mirrorVerify = (argv: string[], io: MirrorIo) => runWith(MIRROR_VERIFY, argv, io, mirrorVerifyRun);
