/**
 * A hub's transparency log checked from outside (design 10.4), with the state seen before kept in a file: the code of
 * `hub index verify --log` and of `hub get --verify-log`, imported by each when it runs.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { modelFilesFromLog, verifyHubLog } from '@hub/client';
import { type LogSeen, LogSeenSchema, LogVerifyError, NoteError } from '@hub/core-index';
import { type CliIo, UsageError } from './cli-framework.js';

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

/** `hub index verify --log URL --key VKEY …`; returns the exit code (1 on a fault of the log). */
export async function logVerifyRun(
  values: { data?: string; log?: string; key?: string[]; state?: string; day?: string },
  io: CliIo & { fetch?: typeof fetch },
): Promise<number> {
  const url = values.log as string;
  if (!/^https?:\/\/\S+$/.test(url)) throw new UsageError('--log takes the URL of a hub log (http://HOST/api/hub/log)');
  const keys = values.key ?? (io.env.HUB_LOG_KEY ? [io.env.HUB_LOG_KEY] : []);
  if (keys.length === 0) throw new UsageError('--log needs --key VKEY: the verifier key its operator published');
  if (values.day && !/^\d{4}-\d{2}-\d{2}$/.test(values.day)) throw new UsageError('--day must be YYYY-MM-DD');
  const stateFile = path.resolve(values.state ?? path.join(values.data ?? io.env.HUB_DATA ?? '.hub-data', 'log-seen.json'));
  let seen: LogSeen | undefined;
  try {
    seen = await readSeen(stateFile);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const say = (line: string) => io.out(`${line}\n`);
  try {
    const r = await verifyHubLog({
      log: url,
      keys,
      ...(seen ? { seen } : {}),
      ...(values.day ? { day: values.day } : {}),
      ...(io.fetch ? { fetch: io.fetch } : {}),
    });
    say(`checkpoint ${r.origin}: ${r.size} leaves, signed by ${[...new Set(r.signedBy)].join(', ')}`);
    say(r.consistentFrom ? `consistent with the checkpoint of size ${r.consistentFrom} seen before` : 'no checkpoint seen before');
    say(`day ${r.entry.date} (leaf ${r.leaf}) included; catalog ${r.entry.catalog}`);
    say(`walked ${r.walk.models} models, ${r.walk.files} files: every object hashes to its address`);
    await writeSeen(stateFile, r.seen);
    say(`ok; state kept in ${stateFile}`);
    return 0;
  } catch (e) {
    if (e instanceof LogVerifyError) {
      say(`FAULT ${e.failure}: ${e.message}`);
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
