/**
 * The command table: every `hub` command in the order `hub --help` lists them (cli-framework.ts answers `--help`,
 * usage mistakes and exit codes from it). Each command group's file holds its options beside its code and exports
 * its commands; the table imports them, never the reverse. A group's file imports only what declaring its commands
 * needs; its code loads the rest when it runs (`hub get` never loads the server). The groups whose code still lives
 * in a file of its own (keys, spaces, buckets) are declared here, their code imported inside `run`.
 */
import { type Command, command, type OptionSpecs } from './cli-framework.js';
import { GET } from './cli-get.js';
import { INDEX_BUILD, INDEX_VERIFY } from './cli-index.js';
import { BUNDLE_CREATE, BUNDLE_IMPORT, MIRROR_PULL, MIRROR_SERVE, MIRROR_VERIFY } from './cli-mirror.js';
import { OBJECTS_PUT } from './cli-objects.js';
import { HUB_URL, PUBLISH_URL } from './cli-options.js';
import { PROBE } from './cli-probe.js';
import { SERVE } from './cli-serve.js';
import { VERIFY_CACHE } from './cli-verify-cache.js';

const KEYS_GENERATE_OPTIONS = {
  out: { type: 'string', arg: 'FILE', help: 'Where the private key is written (mode 0600; never overwritten).' },
  name: { type: 'string', arg: 'NAME', help: "The log's name and checkpoint origin (default HOSTNAME/api/hub/log)." },
} as const satisfies OptionSpecs;

const KEYS_GENERATE = command({
  name: 'keys generate',
  summary: "Make the Ed25519 key that signs the transparency log's checkpoints; prints its verifier key.",
  usage: ['--out FILE [--name NAME]'],
  description: `Write a new Ed25519 signing key for the transparency log to FILE (never overwritten) and print its
verifier key (NAME+KEYID+BASE64, the note format of Go's sumdb). NAME is the log's origin: best your
hub's public host and /api/hub/log. Point signingKey in the config (or HUB_SIGNING_KEY_FILE) at FILE
and publish the verifier key for your users.`,
  options: KEYS_GENERATE_OPTIONS,
  run: async (args, io) => (await import('./cli-log.js')).keysGenerateRun(args.values, io),
});

const SPACES_PUT_OPTIONS = {
  name: { type: 'string', arg: 'NAME', help: 'The space name (1-63 of a-z 0-9 -).' },
  token: { type: 'string', arg: 'TOKEN', help: 'A publisher token of the hub (or HUB_PUBLISHER_TOKEN).' },
  url: PUBLISH_URL,
  title: { type: 'string', arg: 'T', help: 'A title.' },
  about: { type: 'string', arg: 'TEXT', help: 'A line about it.' },
  entry: { type: 'string', arg: 'FILE', help: 'The page it opens (default index.html).' },
} as const satisfies OptionSpecs;

const SPACES_PUT = command({
  name: 'spaces put',
  summary: 'Publish a folder as a space (a browser-only app) at /spaces/NAME/.',
  usage: ['DIR --name NAME --token TOKEN [--url BASE] [--title T] [--about TEXT] [--entry FILE]'],
  description: `Publish a folder as a space (a browser-only app): every file as an object, then the space object
sealing them under one root; it becomes /spaces/NAME/ (and stays at /spaces/ROOT/).`,
  options: SPACES_PUT_OPTIONS,
  positionals: { min: 1, max: 1, name: 'DIR' },
  run: async (args) => (await import('./cli-spaces.js')).spacesPutCommand(args),
});

const BUCKETS_PUT_OPTIONS = {
  name: { type: 'string', arg: 'NAME[:TAG]', help: 'The bucket and tag (default latest).' },
  token: { type: 'string', arg: 'TOKEN', help: 'A registry token of the hub (or HUB_REGISTRY_TOKEN).' },
  url: PUBLISH_URL,
} as const satisfies OptionSpecs;

const BUCKETS_PUT = command({
  name: 'buckets put',
  summary: 'Push an OCI image layout to a bucket.',
  usage: ['DIR --name NAME[:TAG] --token TOKEN [--url BASE]'],
  description: `Push an OCI image layout (DIR/index.json and DIR/blobs/sha256/…) to the bucket hub/buckets/NAME,
tagged TAG (default latest): every blob checked by the hub against its digest, then each manifest,
then the tag. Blobs the bucket already holds are not sent again. Any OCI client works too
(skopeo copy --preserve-digests --dest-creds USER:TOKEN oci:DIR docker://HOST/hub/buckets/NAME:TAG).`,
  options: BUCKETS_PUT_OPTIONS,
  positionals: { min: 1, max: 1, name: 'DIR (an OCI image layout)' },
  run: async (args) => (await import('./cli-buckets.js')).bucketsPutCommand(args),
});

const BUCKETS_GET_OPTIONS = {
  url: { ...HUB_URL, arg: 'BASE' },
} as const satisfies OptionSpecs;

const BUCKETS_GET = command({
  name: 'buckets get',
  summary: 'Pull a bucket into an OCI image layout, every byte checked.',
  usage: ['NAME[:TAG] DIR [--url BASE]'],
  description: `Pull the bucket hub/buckets/NAME at TAG (default latest) into an OCI image layout in DIR: each
manifest and blob is hashed while it downloads and kept only when it matches its digest (exit 1
otherwise, with nothing written under that digest). Blobs already in DIR that hash right are not
fetched again, so an interrupted pull resumes. Anonymous: bucket reads need no token.`,
  options: BUCKETS_GET_OPTIONS,
  positionals: { min: 2, max: 2, name: 'NAME[:TAG] and DIR' },
  run: async (args) => (await import('./cli-buckets.js')).bucketsGetCommand(args),
});

/** The commands in the order `hub --help` lists them. */
export const COMMANDS: readonly Command[] = [
  SERVE,
  GET,
  VERIFY_CACHE,
  INDEX_BUILD,
  INDEX_VERIFY,
  KEYS_GENERATE,
  PROBE,
  OBJECTS_PUT,
  SPACES_PUT,
  BUCKETS_PUT,
  BUCKETS_GET,
  MIRROR_PULL,
  MIRROR_SERVE,
  MIRROR_VERIFY,
  BUNDLE_CREATE,
  BUNDLE_IMPORT,
] as unknown as readonly Command[];

export const OVERVIEW = {
  intro: 'hub — a read-only hub for open model files',
  footer: `Run 'hub COMMAND --help' for a command's options; 'hub --version' prints the version.
Environment: HOST, PORT, HUB_DATA, HUB_CONFIG, HUB_LOG_LEVEL (override the config file), HUB_URL (the hub the
client commands talk to), HUB_SIGNING_KEY_FILE (the log's signing key), HUB_LOG_KEY (the log's verifier key),
HUB_DEBUG=1 (show where an unexpected failure happened), HUB_HASH_THREAD=1 (hub get hashes files of 8 MiB or
more in a worker thread instead of between reads).`,
};
