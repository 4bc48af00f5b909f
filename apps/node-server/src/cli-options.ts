/** Options several command groups share, declared once (each group's own options sit beside its code). */
import { MODELSCOPE_URL } from '@hub/core-index/light';
import { DEFAULT_HUB_URL } from './cli-framework.js';

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
