/** `hub objects put`: its options, the command, and its code (the publish client imported when it runs). */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CliError, command, hubUrlOf, type OptionSpecs, type Parsed, UsageError } from './cli-framework.js';
import { PUBLISH_URL, publishAnswer, publisherToken } from './cli-options.js';

export const OBJECTS_PUT_OPTIONS = {
  kind: { type: 'string', arg: 'KIND', help: 'The object kind, for example model-hub.model.' },
  token: { type: 'string', arg: 'TOKEN', help: 'A publisher token of the hub (or HUB_PUBLISHER_TOKEN).' },
  url: PUBLISH_URL,
  'media-type': { type: 'string', arg: 'TYPE', help: 'The media type (default by the file name).' },
} as const satisfies OptionSpecs;

export const OBJECTS_PUT = command({
  name: 'objects put',
  summary: 'Publish a file as an object; prints its address.',
  usage: ['FILE --kind KIND --token TOKEN [--url BASE] [--media-type TYPE]'],
  description: 'Publish a file as an object (over 16 MiB: 16 MiB chunks and a chunked record); prints its address.',
  options: OBJECTS_PUT_OPTIONS,
  positionals: { min: 1, max: 1, name: 'FILE' },
  run: (args) => objectsPutCommand(args),
});

/** `hub objects put FILE --kind KIND --token TOKEN [--url BASE] [--media-type TYPE]`. */
async function objectsPutCommand({ values, positionals }: Parsed<typeof OBJECTS_PUT_OPTIONS>): Promise<number> {
  const file = positionals[0] as string;
  if (!values.kind) throw new UsageError('needs --kind KIND (for example model-hub.model)');
  const kind = values.kind;
  const token = publisherToken(values.token, process.env);
  const url = hubUrlOf(values.url, process.env);
  (await import('./blake3-node.js')).installFastBlake3();
  const { publishObject } = await import('@hub/objects');
  const { namingFetch } = await import('@hub/client/get');
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(file));
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
  }
  const mediaType = values['media-type'] ?? (/\.json$/i.test(file) ? 'application/json' : 'application/octet-stream');
  return publishAnswer(async () => {
    const r = await publishObject(url, token, bytes, { kind, mediaType, filename: path.basename(file) }, namingFetch(fetch));
    return { address: r.address, created: r.created, size: bytes.byteLength, ...(r.chunks ? { chunks: r.chunks } : {}) };
  });
}
