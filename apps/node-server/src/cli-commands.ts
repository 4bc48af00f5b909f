/**
 * The command table: every `hub` command in the order `hub --help` lists them (cli-framework.ts answers `--help`,
 * usage mistakes and exit codes from it). Each command group's file (`cli-GROUP.ts`) holds its options beside its
 * code and exports its commands; the table imports them, never the reverse. A group's file imports only what
 * declaring its commands needs; its code loads the rest when it runs (`hub get` never loads the server, `hub --help`
 * no publish, bucket or key code: test/start-modules.test.ts).
 */
import { BUCKETS_GET, BUCKETS_PUT } from './cli-buckets.js';
import { BUNDLE_CREATE, BUNDLE_IMPORT } from './cli-bundle.js';
import type { Command } from './cli-framework.js';
import { GET } from './cli-get.js';
import { INDEX_ANSWERS, INDEX_BUILD, INDEX_VERIFY } from './cli-index.js';
import { KEYS_GENERATE } from './cli-keys.js';
import { MIRROR_PULL, MIRROR_SERVE, MIRROR_VERIFY } from './cli-mirror.js';
import { OBJECTS_PUT } from './cli-objects.js';
import { PROBE } from './cli-probe.js';
import { SERVE } from './cli-serve.js';
import { SPACES_PUT } from './cli-spaces.js';
import { VERIFY_CACHE } from './cli-verify-cache.js';

/** The commands in the order `hub --help` lists them. */
export const COMMANDS: readonly Command[] = [
  SERVE,
  GET,
  VERIFY_CACHE,
  INDEX_BUILD,
  INDEX_VERIFY,
  INDEX_ANSWERS,
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
