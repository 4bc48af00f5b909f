import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { httpSpaceSink, PublishError, publishSpace, type SpaceFileInput } from '@hub/objects';
import { CliError } from './cli-index-run.js';

/**
 * Every regular file under `dir`, with its path relative to `dir` (`/`-separated). Dot files and
 * folders (`.git`, `.DS_Store`) are left out; a symbolic link is refused rather than followed.
 */
export async function readSpaceDir(dir: string): Promise<SpaceFileInput[]> {
  const root = path.resolve(dir);
  const out: SpaceFileInput[] = [];
  async function walk(rel: string): Promise<void> {
    const entries = await readdir(path.join(root, rel), { withFileTypes: true });
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const relPath = rel ? `${rel}/${e.name}` : e.name;
      const full = path.join(root, relPath);
      const st = await lstat(full);
      if (st.isSymbolicLink()) throw new CliError(`${relPath}: a symbolic link; copy the file into the folder instead`);
      if (st.isDirectory()) await walk(relPath);
      else if (st.isFile()) out.push({ path: relPath, bytes: new Uint8Array(await readFile(full)) });
    }
  }
  await walk('');
  return out;
}

/** `hub spaces put DIR --name NAME --token TOKEN [--url BASE] [--title T] [--about A] [--entry FILE]` */
export async function spacesPutCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      token: { type: 'string' },
      url: { type: 'string' },
      title: { type: 'string' },
      about: { type: 'string' },
      entry: { type: 'string' },
    },
  });
  const dir = positionals[0];
  if (!dir || positionals.length > 1) throw new CliError('spaces put needs exactly one DIR (see hub --help)');
  if (!values.name) throw new CliError('spaces put needs --name NAME (1-63 of a-z 0-9 -)');
  const token = values.token ?? process.env.HUB_PUBLISHER_TOKEN;
  if (!token) throw new CliError('spaces put needs --token TOKEN (or HUB_PUBLISHER_TOKEN): a publisher token of the hub');
  const url = (values.url ?? process.env.HUB_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  let files: SpaceFileInput[];
  try {
    files = await readSpaceDir(dir);
  } catch (e) {
    if (e instanceof CliError) throw e;
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
      httpSpaceSink(url, token),
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
