/**
 * `hub spaces put`: its options, the command, and its code. The folder reader and the publish client are imported
 * when it runs.
 */
import { CliError, command, hubUrlOf, type OptionSpecs, type Parsed, UsageError } from './cli-framework.js';
import { PUBLISH_URL, publishAnswer, publisherToken } from './cli-options.js';

export const SPACES_PUT_OPTIONS = {
  name: { type: 'string', arg: 'NAME', help: 'The space name (1-63 of a-z 0-9 -).' },
  token: { type: 'string', arg: 'TOKEN', help: 'A publisher token of the hub (or HUB_PUBLISHER_TOKEN).' },
  url: PUBLISH_URL,
  title: { type: 'string', arg: 'T', help: 'A title.' },
  about: { type: 'string', arg: 'TEXT', help: 'A line about it.' },
  entry: { type: 'string', arg: 'FILE', help: 'The page it opens (default index.html).' },
} as const satisfies OptionSpecs;

export const SPACES_PUT = command({
  name: 'spaces put',
  summary: 'Publish a folder as a space (a browser-only app) at /spaces/NAME/.',
  usage: ['DIR --name NAME --token TOKEN [--url BASE] [--title T] [--about TEXT] [--entry FILE]'],
  description: `Publish a folder as a space (a browser-only app): every file as an object, then the space object
sealing them under one root; it becomes /spaces/NAME/ (and stays at /spaces/ROOT/).`,
  options: SPACES_PUT_OPTIONS,
  positionals: { min: 1, max: 1, name: 'DIR' },
  run: (args) => spacesPutCommand(args),
});

/** `hub spaces put DIR --name NAME --token TOKEN [--url BASE] [--title T] [--about A] [--entry FILE]` */
async function spacesPutCommand({ values, positionals }: Parsed<typeof SPACES_PUT_OPTIONS>): Promise<number> {
  const dir = positionals[0] as string;
  if (!values.name) throw new UsageError('needs --name NAME (1-63 of a-z 0-9 -)');
  const name = values.name;
  const token = publisherToken(values.token, process.env);
  const url = hubUrlOf(values.url, process.env);
  (await import('./blake3-node.js')).installFastBlake3();
  const { readSpaceDir } = await import('@hub/node-toolkit');
  const { httpSpaceSink, publishSpace } = await import('@hub/objects');
  const { namingFetch } = await import('@hub/client/get');
  let files: Awaited<ReturnType<typeof readSpaceDir>>;
  try {
    files = await readSpaceDir(dir);
  } catch (e) {
    throw new CliError(`cannot read ${dir}: ${(e as Error).message}`);
  }
  if (files.length === 0) throw new CliError(`${dir} holds no files`);
  return publishAnswer(async () => {
    const r = await publishSpace(
      files,
      {
        name,
        ...(values.title ? { title: values.title } : {}),
        ...(values.about ? { about: values.about } : {}),
        ...(values.entry ? { entry: values.entry } : {}),
      },
      httpSpaceSink(url, token, namingFetch(fetch)),
    );
    return { ...r, url: `${url}/spaces/${r.name}/`, sealed: `${url}/spaces/${r.root}/` };
  });
}
