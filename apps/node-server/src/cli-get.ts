import { join } from 'node:path';
// `@hub/client/get` (the download alone, without the schema library the log and catalog checks load) and the
// signature checks are imported when `hub get` runs: declaring the command loads neither (start-modules.test.ts).
import type { Attempt, ClientOptions, FileResult, Progress, RemoteFile } from '@hub/client/get';
import { command, hubUrlOf, type OptionSpecs, type Parsed, runWith, UsageError } from './cli-framework.js';
import { HUB_URL } from './cli-options.js';
import { ProgressBars } from './progress.js';

/** `hub get`'s DIR after --hf-cache: a following argument that is not a model reference (owner/name). */
const cacheDir = (next: string) => !next.includes('/') || next.startsWith('.') || next.startsWith('/');

export const GET_OPTIONS = {
  to: { type: 'string', arg: 'DIR', help: 'Write the files here (default .).' },
  'hf-cache': {
    type: 'boolean',
    arg: 'DIR',
    optionalValue: cacheDir,
    help: "Write into the model host's cache layout (default HF_HUB_CACHE, HF_HOME/hub or ~/.cache/huggingface/hub).",
  },
  hub: HUB_URL,
  parallel: { type: 'string', arg: 'N', help: 'Files downloaded at once (default 4).' },
  connections: {
    type: 'string',
    arg: 'N',
    help: 'At most N connections to each source for a file of 16 MiB or more, fetched in ranges from every live source (default 8; 1: one request).',
  },
  'stall-seconds': { type: 'string', arg: 'N', help: 'Leave a source that sends nothing for this long (default 30).' },
  'verify-log': {
    type: 'boolean',
    help: "Check the hub's transparency log first; refuse a model whose day is not in a verified checkpoint.",
  },
  key: { type: 'string', multiple: true, arg: 'VKEY', help: "The log's verifier key, from its operator (or HUB_LOG_KEY)." },
  state: { type: 'string', arg: 'FILE', help: 'The log state seen before (default DATA/log-seen.json).' },
  'require-signature': { type: 'boolean', help: 'Refuse a model whose own model.sig the hub has not verified.' },
} as const satisfies OptionSpecs;

export const GET = command({
  name: 'get',
  summary: "Download a model's files through the hub, each checked against its SHA-256.",
  usage: [
    'owner/name[:QUANT] [PATH|GLOB …] [--to DIR | --hf-cache [DIR]] [--hub URL] [--parallel N] [--connections N]',
    '  [--stall-seconds N]',
    '  [--verify-log --key VKEY [--state FILE]] [--require-signature]',
  ],
  description: `Download files through the hub, each hashed while it arrives and checked against the hub's SHA-256;
a source that lies, stalls or fails is left for the next live one. Files land in DIR (default .) or in
the model host's cache layout. Exit 0 only when every file verified.`,
  options: GET_OPTIONS,
  positionals: { min: 1, max: Number.POSITIVE_INFINITY, name: 'a model (owner/name[:QUANT])' },
  run: (args) => getRun(args, processGetIo()),
});

export interface GetIo {
  out: (line: string) => void;
  err: (line: string) => void;
  tty: boolean;
  env: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

/** Runs `hub get` on its arguments; returns the exit code (0 all verified, 1 a file failed, 2 bad usage). */
export function getCommand(argv: string[], io: GetIo): Promise<number> {
  return runWith(GET, argv, io, getRun);
}

/** `hub get` on parsed arguments. */
export async function getRun({ values, positionals }: Parsed<typeof GET_OPTIONS>, io: GetIo): Promise<number> {
  const {
    defaultHfCache,
    downloadAll,
    fileSink,
    hfCacheRangeFile,
    hfCacheSink,
    listFiles,
    modelRevision,
    nodeGetBytes,
    nodeHasher,
    parseRef,
    rangeFile,
    selectFiles,
  } = await import('@hub/client/get');
  const { checkFromBytes, modelSignature, signatureLine, signatureRefusal } = await import('./get-signature.js');
  const [ref, ...patterns] = positionals;
  if (!ref) throw new UsageError('name a model (owner/name[:QUANT])');
  if (values.to && values['hf-cache']) throw new UsageError('--to and --hf-cache exclude each other');
  const parallel = Number(values.parallel ?? 4);
  const connections = Number(values.connections ?? 8);
  const stall = Number(values['stall-seconds'] ?? 30);
  if (
    !Number.isInteger(parallel) ||
    parallel < 1 ||
    !Number.isInteger(connections) ||
    connections < 1 ||
    connections > 64 ||
    !(stall > 0)
  ) {
    throw new UsageError('--parallel takes a whole number ≥ 1, --connections one from 1 to 64, --stall-seconds a positive number');
  }
  let id: string;
  let quant: string | undefined;
  try {
    ({ id, quant } = parseRef(ref));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const hub = hubUrlOf(values.hub, io.env);
  const keys = values.key ?? (io.env.HUB_LOG_KEY ? [io.env.HUB_LOG_KEY] : []);
  if (values['verify-log'] && keys.length === 0)
    throw new UsageError('--verify-log needs --key VKEY (or HUB_LOG_KEY): the verifier key the hub operator published');
  const bars = new ProgressBars((line) => io.err(line));
  // off a terminal, a ranged download's progress is a JSON line per file at most every second (bytes per source)
  const said = new Map<string, number>();
  const ranged = (p: Progress) => {
    const t = Date.now();
    if (p.received < p.size && t - (said.get(p.file) ?? 0) < 1000) return;
    said.set(p.file, t);
    io.out(JSON.stringify({ event: 'progress', file: p.file, received: p.received, size: p.size, sources: p.sources }));
  };
  const opts: ClientOptions = {
    hub,
    hasher: nodeHasher,
    stallSeconds: stall,
    connections,
    // bytes over node:http (an injected fetch, in tests, carries them too)
    ...(io.fetch ? { fetch: io.fetch } : { getBytes: nodeGetBytes }),
    onAttempt: (a: Attempt) => {
      if (!io.tty) io.out(JSON.stringify({ event: 'attempt', ...a }));
    },
    onProgress: (p) => {
      if (io.tty) bars.update(p);
      else if (p.sources) ranged(p);
    },
  };
  let results: FileResult[];
  try {
    const commit = await modelRevision(opts, id);
    const all = await listFiles(opts, id, commit);
    const files = selectFiles(all, patterns, quant);
    // The model's own signature, as the hub verified it from its index (docs/verification.md)
    const verdict = await modelSignature(hub, id, io.fetch);
    if (io.tty) io.err(`${signatureLine(verdict)}\n`);
    else io.out(JSON.stringify({ event: 'signature', ...(verdict ?? { status: 'none' }) }));
    const refusal = values['require-signature']
      ? signatureRefusal(
          verdict,
          files.map((f) => f.path),
        )
      : undefined;
    if (refusal) {
      io.err(`hub get: refused by --require-signature: ${id} ${refusal}`);
      return 1;
    }
    if (values['verify-log']) {
      const state = values.state ?? join(io.env.HUB_DATA ?? '.hub-data', 'log-seen.json');
      if (await refuseUnlogged(hub, id, files, keys, state, io)) return 1;
    }
    const hf = values['hf-cache'];
    const hfCache = hf === undefined ? undefined : hf === true ? defaultHfCache(io.env) : hf;
    const dir = values.to ?? '.';
    results = await downloadAll(
      opts,
      id,
      commit,
      files,
      (f) => (hfCache ? hfCacheSink(hfCache, id, commit, f) : fileSink(join(dir, ...f.path.split('/')))),
      parallel,
      // a large file: in ranges, written in place into a temp file kept (with its record) to resume
      (f) => (hfCache ? hfCacheRangeFile(hfCache, id, commit, f) : rangeFile(join(dir, ...f.path.split('/')), f)),
    );
    // A signature only the bytes can check (shards, another hash than SHA-256): checked now that they are here.
    if (verdict?.status === 'needs-bytes' && results.every((r) => r.ok)) {
      const local = (p: string) =>
        hfCache ? join(hfCache, `models--${id.replace('/', '--')}`, 'snapshots', commit, ...p.split('/')) : join(dir, ...p.split('/'));
      const held = new Map(results.map((r) => [r.file.path, r.file.size] as const));
      const checked = await checkFromBytes(
        { hub, id, commit },
        all.find((f) => f.path === 'model.sig'),
        held,
        local,
        io.env,
        io.fetch,
      );
      if (io.tty) io.err(`${signatureLine(checked).replace('signature:', 'signature (from the bytes):')}\n`);
      else io.out(JSON.stringify({ event: 'signature', from: 'bytes', ...checked }));
      const paths = files.map((f) => f.path);
      const late = !values['require-signature']
        ? undefined
        : checked.status === 'needs-bytes'
          ? `has a model.sig hub get cannot check either (${checked.reason ?? ''})`
          : signatureRefusal(checked, paths);
      if (late || checked.status === 'failed') {
        io.err(
          `hub get: ${late ? `refused by --require-signature: ${id} ${late}` : `${id}: its model.sig fails on the downloaded bytes (${checked.reason ?? ''})`}`,
        );
        return 1;
      }
    }
  } catch (e) {
    io.err(`hub get: ${(e as Error).message}`);
    return 1;
  }
  if (io.tty) bars.draw();
  let bad = 0;
  for (const r of results) {
    if (!r.ok) bad++;
    const summary = {
      event: 'file',
      file: r.file.path,
      ok: r.ok,
      sha256: r.file.sha256,
      size: r.file.size,
      source: r.source ?? null,
      ...(r.sources ? { sources: r.sources } : {}),
      failed: r.attempts.filter((a) => a.outcome !== 'verified').map((a) => ({ source: a.source, outcome: a.outcome, reason: a.reason })),
    };
    if (!io.tty) io.out(JSON.stringify(summary));
    else {
      const from = r.sources ? Object.keys(r.sources).join(', ') : r.source;
      io.err(`${r.ok ? 'verified' : 'FAILED  '} ${r.file.path}${from ? ` from ${from}` : ''}\n`);
      for (const f of summary.failed) io.err(`  ${f.source}: ${f.outcome} (${f.reason})\n`);
    }
  }
  if (io.tty) io.err(`${results.length - bad} of ${results.length} files verified\n`);
  return bad === 0 ? 0 : 1;
}

/**
 * `--verify-log`: the hub's log must verify, the day the hub serves must be in it, and every file to fetch must have
 * the size and SHA-256 that day's model object records. Returns true (after saying why) when the model is refused.
 */
async function refuseUnlogged(
  hub: string,
  id: string,
  files: RemoteFile[],
  keys: string[],
  stateFile: string,
  io: GetIo,
): Promise<boolean> {
  const { filesFromVerifiedLog } = await import('./log-verify.js');
  const { LogVerifyError } = await import('@hub/core-index');
  let logged: Awaited<ReturnType<typeof filesFromVerifiedLog>>;
  try {
    logged = await filesFromVerifiedLog(hub, id, keys, stateFile, io.fetch);
  } catch (e) {
    if (!(e instanceof LogVerifyError)) throw e;
    io.err(`hub get: refused: the hub's log does not verify (${e.failure}): ${e.message}`);
    return true;
  }
  for (const f of files) {
    const want = logged.files.get(f.path);
    if (!want || want.sha256 !== f.sha256 || want.size !== f.size) {
      io.err(`hub get: refused: ${f.path} is not as the verified log's day ${logged.date} records it`);
      return true;
    }
  }
  if (!io.tty) io.out(JSON.stringify({ event: 'log-verified', model: id, day: logged.date }));
  else io.err(`the hub's log verifies; ${id} is in its day ${logged.date}\n`);
  return false;
}

/** The process's terminal for `hub get` and `hub verify-cache` (they write lines). */
export function processGetIo(): GetIo {
  return {
    out: (l) => process.stdout.write(`${l}\n`),
    err: (l) => process.stderr.write(l.endsWith('\n') || l.startsWith('\x1b') ? l : `${l}\n`),
    tty: !!process.stderr.isTTY,
    env: process.env,
  };
}
