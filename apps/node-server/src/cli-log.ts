/** `hub keys generate` and `hub index verify --log`: the transparency log's key and its check from outside (design 10.4). */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { modelFilesFromLog, verifyHubLog } from '@hub/client';
import { generateSignerKey, type LogSeen, LogSeenSchema, LogVerifyError, NoteError } from '@hub/core-index';

export const KEYS_HELP = `  hub keys generate --out FILE [--name NAME]
      Write a new Ed25519 signing key for the transparency log to FILE (mode 0600; never overwritten)
      and print its verifier key (NAME+KEYID+BASE64, the note format of Go's sumdb). NAME is the log's
      origin, best your hub's public host and /api/hub/log (default: this machine's name). Point
      signingKey in the config (or HUB_SIGNING_KEY_FILE) at FILE; give the verifier key to your users.
`;

export const LOG_VERIFY_HELP = `  hub index verify --log URL --key VKEY [--key VKEY …] [--state FILE] [--day YYYY-MM-DD] [--data DIR]
      Check a hub's history from outside: the checkpoint at URL (the log prefix or its /checkpoint)
      signed by VKEY, every tile and entry against it, the day's inclusion (default the newest), the
      consistency with the checkpoint seen before (kept in --state FILE, default DATA/log-seen.json),
      then that day's catalog and model objects down to each file's SHA-256. Exit 1 on any fault
      (a rewritten past day is named), 2 on a usage mistake.
`;

export interface LogIo {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

function usage(io: LogIo, message: string): number {
  io.err(`hub: ${message}`);
  return 2;
}

/** `hub keys generate --out FILE [--name NAME]`; returns the exit code. */
export async function keysGenerateCommand(argv: string[], io: LogIo): Promise<number> {
  let values: { out?: string; name?: string; help?: boolean };
  try {
    ({ values } = parseArgs({ args: argv, options: { out: { type: 'string' }, name: { type: 'string' }, help: { type: 'boolean' } } }));
  } catch (e) {
    return usage(io, `keys generate: ${(e as Error).message}`);
  }
  if (values.help) {
    io.out(KEYS_HELP.trimEnd());
    return 0;
  }
  if (!values.out) return usage(io, 'keys generate needs --out FILE (where the private key is written)');
  const name = values.name ?? `${hostname()}/api/hub/log`;
  let pair: { signerKey: string; verifierKey: string };
  try {
    pair = await generateSignerKey(name);
  } catch (e) {
    if (e instanceof NoteError) return usage(io, `keys generate: ${e.message}`);
    throw e;
  }
  try {
    // `wx`: never replace a key (an overwritten key would orphan every checkpoint it signed).
    await writeFile(values.out, `${pair.signerKey}\n`, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return usage(
      io,
      code === 'EEXIST' ? `keys generate: ${values.out} exists; a key is never overwritten` : `cannot write ${values.out}: ${code}`,
    );
  }
  io.out(pair.verifierKey);
  io.err(`hub: wrote the signing key to ${values.out}; the line above is its verifier key`);
  return 0;
}

async function readSeen(file: string): Promise<LogSeen | undefined> {
  let raw: string;
  try {
    raw = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  const parsed = LogSeenSchema.safeParse(
    (() => {
      try {
        return JSON.parse(raw);
      } catch {
        return undefined;
      }
    })(),
  );
  if (!parsed.success) throw new NoteError(`the state file ${file} is not a log state (svc.model-hub.log-seen/v1)`);
  return parsed.data;
}

async function writeSeen(file: string, seen: LogSeen): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(seen)}\n`);
  await rename(temp, file);
}

/** `hub index verify --log URL --key VKEY …`; returns the exit code. */
export async function logVerifyCommand(argv: string[], io: LogIo): Promise<number> {
  let values: { log?: string; key?: string[]; state?: string; day?: string; data?: string; config?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        log: { type: 'string' },
        key: { type: 'string', multiple: true },
        state: { type: 'string' },
        day: { type: 'string' },
        data: { type: 'string' },
        config: { type: 'string' },
      },
    }));
  } catch (e) {
    return usage(io, `index verify: ${(e as Error).message}`);
  }
  const url = values.log as string;
  if (!/^https?:\/\/[^\s]+$/.test(url)) return usage(io, 'index verify --log takes the URL of a hub log (http://HOST/api/hub/log)');
  const keys = values.key ?? (io.env.HUB_LOG_KEY ? [io.env.HUB_LOG_KEY] : []);
  if (keys.length === 0) return usage(io, 'index verify --log needs --key VKEY: the verifier key its operator published');
  if (values.day && !/^\d{4}-\d{2}-\d{2}$/.test(values.day)) return usage(io, '--day must be YYYY-MM-DD');
  const stateFile = path.resolve(values.state ?? path.join(values.data ?? io.env.HUB_DATA ?? '.hub-data', 'log-seen.json'));
  let seen: LogSeen | undefined;
  try {
    seen = await readSeen(stateFile);
  } catch (e) {
    return usage(io, (e as Error).message);
  }
  try {
    const r = await verifyHubLog({
      log: url,
      keys,
      ...(seen ? { seen } : {}),
      ...(values.day ? { day: values.day } : {}),
      ...(io.fetch ? { fetch: io.fetch } : {}),
    });
    io.out(`checkpoint ${r.origin}: ${r.size} leaves, signed by ${[...new Set(r.signedBy)].join(', ')}`);
    io.out(r.consistentFrom ? `consistent with the checkpoint of size ${r.consistentFrom} seen before` : 'no checkpoint seen before');
    io.out(`day ${r.entry.date} (leaf ${r.leaf}) included; catalog ${r.entry.catalog}`);
    io.out(`walked ${r.walk.models} models, ${r.walk.files} files: every object hashes to its address`);
    await writeSeen(stateFile, r.seen);
    io.out(`ok; state kept in ${stateFile}`);
    return 0;
  } catch (e) {
    if (e instanceof LogVerifyError) {
      io.out(`FAULT ${e.failure}: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

/**
 * `hub get --verify-log`: the files the verified log records for a model on the day the hub serves. The caller
 * compares them with the hub's tree; a fault throws {@link LogVerifyError}.
 */
export async function filesFromVerifiedLog(
  hub: string,
  id: string,
  keys: string[],
  stateFile: string,
  f?: typeof fetch,
): Promise<{ date: string; files: Map<string, { size: number; sha256: string }> }> {
  const seen = await readSeen(stateFile);
  const r = await modelFilesFromLog({ hub, keys, ...(seen ? { seen } : {}), ...(f ? { fetch: f } : {}) }, id);
  await writeSeen(stateFile, r.verified.seen);
  return { date: r.date, files: r.files };
}
