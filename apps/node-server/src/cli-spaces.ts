import { namingFetch } from '@hub/client/get';
import { readSpaceDir } from '@hub/node-toolkit';
import { httpSpaceSink, PublishError, publishSpace, type SpaceFileInput } from '@hub/objects';
import { installFastBlake3 } from './blake3-node.js';
import { CliError, hubUrlOf, UsageError } from './cli-framework.js';

/** `hub spaces put DIR --name NAME --token TOKEN [--url BASE] [--title T] [--about A] [--entry FILE]` */
export async function spacesPutCommand({
  values,
  positionals,
}: {
  values: { name?: string; token?: string; url?: string; title?: string; about?: string; entry?: string };
  positionals: string[];
}): Promise<number> {
  installFastBlake3();
  const dir = positionals[0] as string;
  if (!values.name) throw new UsageError('needs --name NAME (1-63 of a-z 0-9 -)');
  const token = values.token ?? process.env.HUB_PUBLISHER_TOKEN;
  if (!token) throw new UsageError('needs --token TOKEN (or HUB_PUBLISHER_TOKEN): a publisher token of the hub');
  const url = hubUrlOf(values.url, process.env);
  let files: SpaceFileInput[];
  try {
    files = await readSpaceDir(dir);
  } catch (e) {
    throw new CliError(`cannot read ${dir}: ${(e as Error).message}`);
  }
  if (files.length === 0) throw new CliError(`${dir} holds no files`);
  try {
    const r = await publishSpace(
      files,
      {
        name: values.name,
        ...(values.title ? { title: values.title } : {}),
        ...(values.about ? { about: values.about } : {}),
        ...(values.entry ? { entry: values.entry } : {}),
      },
      httpSpaceSink(url, token, namingFetch(fetch)),
    );
    process.stdout.write(`${JSON.stringify({ ...r, url: `${url}/spaces/${r.name}/`, sealed: `${url}/spaces/${r.root}/` })}\n`);
    return 0;
  } catch (e) {
    if (e instanceof PublishError) {
      process.stderr.write(`hub: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
