/**
 * Every `hub` command, declared once: its name, usage, description, options and positionals (cli-framework.ts
 * answers `--help`, usage mistakes and exit codes from these). A new command is one more entry in COMMANDS; its
 * code is imported inside `run`, so the table stays cheap to load (`hub get` never loads the server).
 */
import { MODELSCOPE_URL } from '@hub/core-index/light';
import { type Command, command, DEFAULT_HUB_URL, type OptionSpecs } from './cli-framework.js';

const DATA = { type: 'string', arg: 'DIR', help: 'The data folder (default ./.hub-data, or HUB_DATA).' } as const;
const CONFIG = { type: 'string', arg: 'FILE', help: 'A configuration file (or HUB_CONFIG).' } as const;
const HUB_URL = { type: 'string', arg: 'URL', help: `The hub (default HUB_URL, else ${DEFAULT_HUB_URL}).` } as const;
const PUBLISH_URL = { type: 'string', arg: 'BASE', help: `The hub to publish to (default HUB_URL, else ${DEFAULT_HUB_URL}).` } as const;
const MODELSCOPE = { type: 'string', arg: 'URL|off', help: `Where models are looked up by SHA-256 (default ${MODELSCOPE_URL}).` } as const;
const SOURCE = {
  type: 'string',
  multiple: true,
  arg: 'NAME=URL_TEMPLATE',
  help: 'A place the bytes can be fetched from; the template takes {id} {owner} {name} {revision} {path} (repeatable).',
} as const;

export const SERVE_OPTIONS = {
  port: { type: 'string', arg: 'N', help: 'The port (default 8080, or PORT).' },
  data: DATA,
  config: CONFIG,
  host: { type: 'string', arg: 'ADDR', help: 'The address to listen on.' },
  refresh: { type: 'string', arg: 'daily|hourly|<N>h', help: 'Rebuild the index from the upstream on this schedule.' },
  'refresh-at': { type: 'string', arg: 'HH:MM', help: 'The time of day (UTC) of a daily refresh (default 03:00).' },
  upstream: { type: 'string', arg: 'URL', help: 'The model host a refresh reads (default https://huggingface.co).' },
  top: { type: 'string', arg: 'N', help: 'How many trending models a refresh indexes (default 500).' },
  modelscope: MODELSCOPE,
} as const satisfies OptionSpecs;

const SERVE = command({
  name: 'serve',
  summary: 'Start the hub (an empty data folder is seeded with the demo index).',
  usage: [
    '[--port N] [--data DIR] [--config FILE] [--host ADDR]',
    '[--refresh daily|hourly|<N>h [--refresh-at HH:MM] [--upstream URL] [--top N]]',
  ],
  description: `Start the hub (default 127.0.0.1:8080, loopback only; HOST=0.0.0.0 or --host 0.0.0.0 for every
interface; data in ./.hub-data). An empty data folder is seeded with the bundled demo index, and a demo
mirror serves its bytes on the next port. --refresh runs the upstream index build on a timer (daily at
03:00 UTC by default) and switches to the new index without a restart.
Environment: HOST, PORT, HUB_DATA, HUB_CONFIG, HUB_LOG_LEVEL (override the config file).`,
  options: SERVE_OPTIONS,
  run: async (args) => (await import('./cli-main.js')).serveCommand(args.values),
});

export const INDEX_BUILD_OPTIONS = {
  'from-dir': { type: 'string', arg: 'DIR', help: 'Index this tree ({owner}/{name}/…).' },
  upstream: { type: 'string', arg: 'URL', help: 'Index the trending models of this model host.' },
  source: SOURCE,
  data: DATA,
  config: CONFIG,
  date: { type: 'string', arg: 'YYYY-MM-DD', help: "The index's day (default today, UTC)." },
  top: { type: 'string', arg: 'N', help: 'How many trending models (default 500, at most 10000).' },
  modelscope: MODELSCOPE,
  'model-concurrency': { type: 'string', arg: 'N', help: 'Models indexed at once (1-64).' },
  'request-concurrency': { type: 'string', arg: 'N', help: 'Requests to the upstream at once (1-64).' },
  'small-file-cap': { type: 'string', arg: 'BYTES', help: 'Files up to this size are downloaded and hashed.' },
  fresh: { type: 'boolean', help: 'Start over instead of reusing the models a crashed run finished.' },
} as const satisfies OptionSpecs;

const INDEX_BUILD = command({
  name: 'index build',
  interrupted: 'The index served is unchanged. Run the same command again: an upstream build reuses the models it finished.',
  summary: "Build today's index from a local tree (--from-dir) or a model host (--upstream).",
  usage: [
    '--from-dir DIR --source NAME=URL_TEMPLATE [--source …] [--data DIR] [--date YYYY-MM-DD]',
    '--upstream URL [--top N] [--data DIR] [--date YYYY-MM-DD] [--modelscope URL|off] [--source NAME=URL_TEMPLATE]',
    '  [--model-concurrency N] [--request-concurrency N] [--small-file-cap BYTES] [--fresh]',
  ],
  description: `--from-dir: index a local tree laid out as {owner}/{name}/…; every file is hashed with SHA-256.
--upstream: today's index of the N (default 500) trending public models of a model host (or a mirror of
its API): trees with SHA-256, small files hashed, GGUF headers read, sources found (ModelScope by
SHA-256, IPFS from pins.json in the data folder), archived and chained to the last day. Resumable: run
it again after a crash and it reuses finished models. HF_TOKEN (or HUB_UPSTREAM_TOKEN) is sent to the
upstream only.`,
  options: INDEX_BUILD_OPTIONS,
  run: async (args) => (await import('./cli-main.js')).indexBuildCommand(args.values),
});

export const INDEX_VERIFY_OPTIONS = {
  data: DATA,
  config: CONFIG,
  log: { type: 'string', arg: 'URL', help: "A hub's transparency log (its prefix, http://HOST/api/hub/log, or its checkpoint)." },
  key: { type: 'string', multiple: true, arg: 'VKEY', help: "With --log: the log's verifier key, from its operator (or HUB_LOG_KEY)." },
  state: { type: 'string', arg: 'FILE', help: 'With --log: the checkpoint and leaves seen before (default DATA/log-seen.json).' },
  day: { type: 'string', arg: 'YYYY-MM-DD', help: 'With --log: the day to prove and walk (default the newest).' },
} as const satisfies OptionSpecs;

const INDEX_VERIFY = command({
  name: 'index verify',
  summary: "Check a data folder (every object, catalog and the archive chain), or a hub's signed log (--log).",
  usage: ['[--data DIR]', '--log URL --key VKEY [--key VKEY …] [--state FILE] [--day YYYY-MM-DD]'],
  description: `Without --log: re-hash every object, check every catalog's references, walk the archive chain.
With --log: check a hub's history from outside: the checkpoint signed by VKEY, every tile and entry
against it, the day's inclusion, the consistency with the checkpoint seen before (kept in --state),
then that day's catalog and model objects down to each file's SHA-256; a rewritten past day is named.
Exit 1 on any fault.`,
  options: INDEX_VERIFY_OPTIONS,
  run: async (args, io) =>
    args.values.log
      ? (await import('./cli-log.js')).logVerifyRun(args.values, io)
      : (await import('./cli-main.js')).indexVerifyCommand(args.values),
});

export const KEYS_GENERATE_OPTIONS = {
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

export const OBJECTS_PUT_OPTIONS = {
  kind: { type: 'string', arg: 'KIND', help: 'The object kind, for example model-hub.model.' },
  token: { type: 'string', arg: 'TOKEN', help: 'A publisher token of the hub (or HUB_PUBLISHER_TOKEN).' },
  url: PUBLISH_URL,
  'media-type': { type: 'string', arg: 'TYPE', help: 'The media type (default by the file name).' },
} as const satisfies OptionSpecs;

const OBJECTS_PUT = command({
  name: 'objects put',
  summary: 'Publish a file as an object; prints its address.',
  usage: ['FILE --kind KIND --token TOKEN [--url BASE] [--media-type TYPE]'],
  description: 'Publish a file as an object (over 16 MiB: 16 MiB chunks and a chunked record); prints its address.',
  options: OBJECTS_PUT_OPTIONS,
  positionals: { min: 1, max: 1, name: 'FILE' },
  run: async (args) => (await import('./cli-index-run.js')).objectsPutCommand(args),
});

export const SPACES_PUT_OPTIONS = {
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

export const BUCKETS_PUT_OPTIONS = {
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

export const BUCKETS_GET_OPTIONS = {
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

export const PROBE_OPTIONS = { data: DATA, config: CONFIG } as const satisfies OptionSpecs;

const PROBE = command({
  name: 'probe',
  summary: 'Probe every configured source once, now, and print a table.',
  usage: ['[--data DIR] [--config FILE]'],
  description: `Probe every configured source that has a probe file once, now, and print a table (source, ok,
reason, HTTP status, milliseconds) and save the results in the data folder (a hub started on it
restores them). Exit 1 when any probed source fails.`,
  options: PROBE_OPTIONS,
  run: async (args) => (await import('./cli-main.js')).probeCommand(args.values),
});

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
  'stall-seconds': { type: 'string', arg: 'N', help: 'Leave a source that sends nothing for this long (default 30).' },
  'verify-log': {
    type: 'boolean',
    help: "Check the hub's transparency log first; refuse a model whose day is not in a verified checkpoint.",
  },
  key: { type: 'string', multiple: true, arg: 'VKEY', help: "The log's verifier key, from its operator (or HUB_LOG_KEY)." },
  state: { type: 'string', arg: 'FILE', help: 'The log state seen before (default DATA/log-seen.json).' },
} as const satisfies OptionSpecs;

export const GET = command({
  name: 'get',
  summary: "Download a model's files through the hub, each checked against its SHA-256.",
  usage: [
    'owner/name[:QUANT] [PATH|GLOB …] [--to DIR | --hf-cache [DIR]] [--hub URL] [--parallel N] [--stall-seconds N]',
    '  [--verify-log --key VKEY [--state FILE]]',
  ],
  description: `Download files through the hub, each hashed while it arrives and checked against the hub's SHA-256;
a source that lies, stalls or fails is left for the next live one. Files land in DIR (default .) or in
the model host's cache layout. Exit 0 only when every file verified.`,
  options: GET_OPTIONS,
  positionals: { min: 1, max: Number.POSITIVE_INFINITY, name: 'a model (owner/name[:QUANT])' },
  run: async (args) => {
    const { getRun, processGetIo } = await import('./cli-get.js');
    return getRun(args, processGetIo());
  },
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
  run: async (args) => {
    const { verifyCacheRun, processGetIo } = await import('./cli-get.js');
    return verifyCacheRun(args, processGetIo());
  },
});

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
  run: async (args) => {
    const m = await import('./cli-mirror.js');
    return m.mirrorPullRun(args, m.processMirrorIo());
  },
});

export const MIRROR_SERVE_OPTIONS = {
  port: { type: 'string', arg: 'N', help: 'The port (default 8090).' },
  host: { type: 'string', arg: 'ADDR', help: 'The address to listen on (default 127.0.0.1).' },
} as const satisfies OptionSpecs;

const MIRROR_SERVE = command({
  name: 'mirror serve',
  summary: 'Serve a mirror folder (manifest.json, sha256/<hex>, with Range) for a hub.',
  usage: ['DIR [--port N] [--host ADDR]'],
  description: `Serve a mirror folder as any static web server would (Range, ETag, CORS), for a hub's source
{"name": "local-mirror", "kind": "mirror", "url": "http://HOST:PORT/"}. Runs until interrupted.`,
  options: MIRROR_SERVE_OPTIONS,
  positionals: { min: 1, max: 1, name: 'the mirror folder (DIR)' },
  run: async (args) => {
    const m = await import('./cli-mirror.js');
    return m.mirrorServeRun(args, m.processMirrorIo());
  },
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
  run: async (args) => {
    const m = await import('./cli-mirror.js');
    return m.mirrorVerifyRun(args, m.processMirrorIo());
  },
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
  run: async (args) => {
    const m = await import('./cli-mirror.js');
    return m.bundleCreateRun(args, m.processMirrorIo());
  },
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
  run: async (args) => {
    const m = await import('./cli-mirror.js');
    return m.bundleImportRun(args, m.processMirrorIo());
  },
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
