/**
 * `hub verify-cache`: re-hash the model host's cache against the hub's SHA-256, at the cached revision (from the
 * hub's archive when it no longer serves that revision); --fix re-fetches what differs. Its options, command and code.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ArchiveSeen } from '@hub/client';
import type { ClientOptions, RemoteFile } from '@hub/client/get';
import { command, hubUrlOf, type OptionSpecs, type Parsed, runWith } from './cli-framework.js';
import { type GetIo, processGetIo } from './cli-get.js';
import { HUB_URL } from './cli-options.js';

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
  const { defaultHfCache, downloadAll, hfCacheSink, nodeGetBytes, nodeHasher, sha256File } = await import('@hub/client/get');
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
  const { HubAnswerError, listFiles } = await import('@hub/client/get');
  try {
    return await listFiles(opts, id, revision);
  } catch (e) {
    if (!(e instanceof HubAnswerError && e.status === 404)) throw e;
  }
  // Loaded only here: the archive walk checks objects with the schema library `hub get` does without.
  const { archivedModelFiles } = await import('@hub/client');
  return archivedModelFiles(opts.hub, id, revision, { seen, ...(f ? { fetch: f } : {}) });
}
