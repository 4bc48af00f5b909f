/**
 * Options several command groups share, declared once (each group's own options sit beside its code), and the publish
 * steps `objects put` and `spaces put` share.
 */
import { MODELSCOPE_URL } from '@hub/core-index/light';
import { DEFAULT_HUB_URL, UsageError } from './cli-framework.js';

export const DATA = { type: 'string', arg: 'DIR', help: 'The data folder (default ./.hub-data, or HUB_DATA).' } as const;
export const CONFIG = { type: 'string', arg: 'FILE', help: 'A configuration file (or HUB_CONFIG).' } as const;
export const HUB_URL = { type: 'string', arg: 'URL', help: `The hub (default HUB_URL, else ${DEFAULT_HUB_URL}).` } as const;
export const PUBLISH_URL = {
  type: 'string',
  arg: 'BASE',
  help: `The hub to publish to (default HUB_URL, else ${DEFAULT_HUB_URL}).`,
} as const;
export const MODELSCOPE = {
  type: 'string',
  arg: 'URL|off',
  help: `Where models are looked up by SHA-256 (default ${MODELSCOPE_URL}).`,
} as const;
export const SOURCE = {
  type: 'string',
  multiple: true,
  arg: 'NAME=URL_TEMPLATE',
  help: 'A place the bytes can be fetched from; the template takes {id} {owner} {name} {revision} {path} (repeatable).',
} as const;

/** The publisher token of `objects put` and `spaces put`: `--token`, else HUB_PUBLISHER_TOKEN; missing is a usage error. */
export function publisherToken(option: string | undefined, env: NodeJS.ProcessEnv): string {
  const token = option ?? env.HUB_PUBLISHER_TOKEN;
  if (!token) throw new UsageError('needs --token TOKEN (or HUB_PUBLISHER_TOKEN): a publisher token of the hub');
  return token;
}

/** A publish: its result as one JSON line (exit 0), or the hub's refusal (`PublishError`) as one line (exit 1). */
export async function publishAnswer(publish: () => Promise<unknown>): Promise<number> {
  const { PublishError } = await import('@hub/objects');
  try {
    process.stdout.write(`${JSON.stringify(await publish())}\n`);
    return 0;
  } catch (e) {
    if (e instanceof PublishError) {
      process.stderr.write(`hub: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
