/** `hub get`: download a model's files through the hub, every byte checked against the hub's SHA-256. */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ArchiveSeen } from '@hub/client';
// `@hub/client/get`: the download alone, without the schema library the log and catalog checks load (a faster start)
import {
  type Attempt,
  type ClientOptions,
  defaultHfCache,
  downloadAll,
  type FileResult,
  fileSink,
  HubAnswerError,
  hfCacheRangeFile,
  hfCacheSink,
  listFiles,
  modelRevision,
  nodeGetBytes,
  nodeHasher,
  type Progress,
  parseRef,
  type RemoteFile,
  rangeFile,
  selectFiles,
  sha256File,
} from '@hub/client/get';
import { command, hubUrlOf, type OptionSpecs, type Parsed, runWith, UsageError } from './cli-framework.js';
import { HUB_URL } from './cli-options.js';
import { checkFromBytes, modelSignature, signatureLine, signatureRefusal } from './get-signature.js';
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

export const VERIFY_CACHE_OPTIONS = {
  hub: HUB_URL,
  fix: { type: 'boolean', help: 'Re-fetch mismatched files through the hub, verified.' },
} as const satisfies OptionSpecs;

export const VERIFY_CACHE = command({
  name: 'verify-cache',
  summary: "Re-hash the model host's cache against the hub's SHA-256; --fix re-fetches what differs.",
  usage: ['[DIR] [--hub URL] [--fix]'],
  description: `Re-hash every file cached in the model host's cache layout (default: HF_HUB_CACHE, HF_HOME/hub,
XDG_CACHE_HOME/huggingface/hub or ~/.cache/huggingface/hub) for every model the hub indexes at that
revision; list matches, mismatches (expected and actual SHA-256) and files the hub does not know.
Exit 1 on a mismatch. --fix re-fetches mismatched files through the hub, verified.`,
  options: VERIFY_CACHE_OPTIONS,
  positionals: { max: 1, name: 'DIR' },
  run: (args) => verifyCacheRun(args, processGetIo()),
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
  const { filesFromVerifiedLog } = await import('./cli-log.js');
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

async function walk(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await walk(join(dir, e.name), rel)));
    else out.push(rel);
  }
  return out.sort();
}

/** Runs `hub verify-cache` on its arguments; returns the exit code (0 no mismatch, 1 a mismatch or a failed fix, 2 bad usage). */
export function verifyCacheCommand(argv: string[], io: GetIo): Promise<number> {
  return runWith(VERIFY_CACHE, argv, io, verifyCacheRun);
}

/** `hub verify-cache` on parsed arguments. */
export async function verifyCacheRun(parsed: Parsed<typeof VERIFY_CACHE_OPTIONS>, io: GetIo): Promise<number> {
  const cache = parsed.positionals[0] ?? defaultHfCache(io.env);
  const hub = hubUrlOf(parsed.values.hub, io.env);
  const opts: ClientOptions = { hub, hasher: nodeHasher, ...(io.fetch ? { fetch: io.fetch } : { getBytes: nodeGetBytes }) };
  const say = (v: Record<string, unknown>, text: string) => (io.tty ? io.err(`${text}\n`) : io.out(JSON.stringify(v)));
  let repos: string[];
  try {
    repos = (await readdir(cache)).filter((d) => d.startsWith('models--')).sort();
  } catch (e) {
    io.err(`hub verify-cache: cannot read ${cache}: ${(e as Error).message}`);
    return 2;
  }
  // A dead or wrong hub is a failure, never a clean pass that lists every model as unknown.
  const unreachable = await notAHub(hub, io.fetch);
  if (unreachable) {
    io.err(`hub verify-cache: ${unreachable}; nothing was checked`);
    return 1;
  }
  let mismatches = 0;
  let fixFailed = 0;
  let failed = 0;
  const seen: ArchiveSeen = new Map();
  for (const folder of repos) {
    const parts = folder.slice('models--'.length).split('--');
    const id = parts.length >= 2 ? `${parts[0]}/${parts.slice(1).join('--')}` : (parts[0] ?? '');
    let commits: string[] = [];
    try {
      commits = (await readdir(join(cache, folder, 'snapshots'))).sort();
    } catch {
      continue;
    }
    for (const commit of commits) {
      let files: RemoteFile[] | undefined;
      try {
        files = await filesAt(opts, id, commit, seen, io.fetch);
      } catch (e) {
        failed++;
        say({ event: 'error', model: id, revision: commit, error: (e as Error).message }, `!  ${id}@${commit}: ${(e as Error).message}`);
        continue;
      }
      if (!files) {
        say({ event: 'unknown-revision', model: id, revision: commit }, `?  ${id}@${commit}: not indexed by the hub`);
        continue;
      }
      const tree = new Map(files.map((f) => [f.path, f]));
      const bad: RemoteFile[] = [];
      for (const rel of await walk(join(cache, folder, 'snapshots', commit))) {
        const expected = tree.get(rel);
        if (!expected) {
          say({ event: 'unknown', model: id, revision: commit, file: rel }, `?  ${id}@${commit} ${rel}: not in the hub's index`);
          continue;
        }
        const actual = await sha256File(join(cache, folder, 'snapshots', commit, ...rel.split('/')));
        if (actual === expected.sha256) {
          say({ event: 'match', model: id, revision: commit, file: rel, sha256: actual }, `ok ${id}@${commit} ${rel}`);
        } else {
          mismatches++;
          bad.push(expected);
          say(
            { event: 'mismatch', model: id, revision: commit, file: rel, expected: expected.sha256, actual },
            `MISMATCH ${id}@${commit} ${rel}\n  expected ${expected.sha256}\n  actual   ${actual}`,
          );
        }
      }
      if (parsed.values.fix && bad.length > 0) {
        const results = await downloadAll(opts, id, commit, bad, (f) => hfCacheSink(cache, id, commit, f), 2);
        for (const r of results) {
          if (!r.ok) fixFailed++;
          say(
            { event: 'fix', model: id, revision: commit, file: r.file.path, ok: r.ok, source: r.source ?? null },
            `${r.ok ? 'fixed' : 'FIX FAILED'} ${id}@${commit} ${r.file.path}${r.source ? ` from ${r.source}` : ''}`,
          );
        }
      }
    }
  }
  if (fixFailed > 0 || failed > 0) return 1;
  return mismatches > 0 && !parsed.values.fix ? 1 : 0;
}

/** Why `hub` is no model hub this command can check against (no answer, or no hub descriptor), or undefined. */
async function notAHub(hub: string, f: typeof fetch = fetch): Promise<string | undefined> {
  const url = `${hub.replace(/\/+$/, '')}/.well-known/model-hub.json`;
  let r: Response;
  try {
    r = await f(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(30_000) });
  } catch (e) {
    const err = e as { cause?: { code?: string }; code?: string; message?: string };
    return `${hub} does not answer (${err.cause?.code ?? err.code ?? err.message})`;
  }
  const body = (await r.json().catch(() => undefined)) as { catalog?: unknown } | undefined;
  if (!r.ok || typeof body?.catalog !== 'string') return `${hub} is not a model hub (${url} answered HTTP ${r.status} without a catalog)`;
  return undefined;
}

/**
 * The hub's files of `id` at `revision`: its tree when the hub serves that revision today, else the revision's files
 * as its archive still holds them (earlier days' model objects, each checked against its address); undefined when
 * the hub never indexed it. A failure to ask (no answer, a 5xx) throws.
 */
async function filesAt(
  opts: ClientOptions,
  id: string,
  revision: string,
  seen: ArchiveSeen,
  f?: typeof fetch,
): Promise<RemoteFile[] | undefined> {
  try {
    return await listFiles(opts, id, revision);
  } catch (e) {
    if (!(e instanceof HubAnswerError && e.status === 404)) throw e;
  }
  // Loaded only here: the archive walk checks objects with the schema library `hub get` does without.
  const { archivedModelFiles } = await import('@hub/client');
  return archivedModelFiles(opts.hub, id, revision, { seen, ...(f ? { fetch: f } : {}) });
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
