/**
 * `hub keys generate`: its options, the command, and its code (the transparency log's key, design 10.4). The key
 * code (core-index's note signer) is imported when it runs.
 */
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { type CliIo, command, type OptionSpecs, UsageError, type Values } from './cli-framework.js';

export const KEYS_GENERATE_OPTIONS = {
  out: { type: 'string', arg: 'FILE', help: 'Where the private key is written (mode 0600; never overwritten).' },
  name: { type: 'string', arg: 'NAME', help: "The log's name and checkpoint origin (default HOSTNAME/api/hub/log)." },
} as const satisfies OptionSpecs;

export const KEYS_GENERATE = command({
  name: 'keys generate',
  summary: "Make the Ed25519 key that signs the transparency log's checkpoints; prints its verifier key.",
  usage: ['--out FILE [--name NAME]'],
  description: `Write a new Ed25519 signing key for the transparency log to FILE (never overwritten) and print its
verifier key (NAME+KEYID+BASE64, the note format of Go's sumdb). NAME is the log's origin: best your
hub's public host and /api/hub/log. Point signingKey in the config (or HUB_SIGNING_KEY_FILE) at FILE
and publish the verifier key for your users.`,
  options: KEYS_GENERATE_OPTIONS,
  run: (args, io) => keysGenerateRun(args.values, io),
});

/** `hub keys generate --out FILE [--name NAME]`; returns the exit code. */
async function keysGenerateRun(values: Values<typeof KEYS_GENERATE_OPTIONS>, io: CliIo): Promise<number> {
  if (!values.out) throw new UsageError('needs --out FILE (where the private key is written)');
  const name = values.name ?? `${hostname()}/api/hub/log`;
  const { generateSignerKey, NoteError } = await import('@hub/core-index');
  let pair: { signerKey: string; verifierKey: string };
  try {
    pair = await generateSignerKey(name);
  } catch (e) {
    if (e instanceof NoteError) throw new UsageError(e.message);
    throw e;
  }
  try {
    // `wx`: never replace a key (an overwritten key would orphan every checkpoint it signed).
    await writeFile(values.out, `${pair.signerKey}\n`, { mode: 0o600, flag: 'wx' });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'EEXIST' ? `${values.out} exists; a key is never overwritten` : `cannot write ${values.out}: ${code}`);
  }
  io.out(`${pair.verifierKey}\n`);
  io.err(`hub: wrote the signing key to ${values.out}; the line above is its verifier key\n`);
  return 0;
}
