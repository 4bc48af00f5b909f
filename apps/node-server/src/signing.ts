import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { NoteError, type NoteSigner, parseSignerKey } from '@hub/core-index';
import { ConfigError, type ResolvedConfig } from './config.js';

/**
 * The keys that sign the transparency log's checkpoint (design 10.4): the files named by `signingKey` in the config
 * (one path or several, for a rotation: every key signs, so verifiers of the old key and of the new one both check),
 * else by HUB_SIGNING_KEY_FILE (paths separated by commas). No key: the log grows unsigned. A key file's content is
 * never logged nor repeated in an error; only its path is.
 */
export async function loadSigners(cfg: Pick<ResolvedConfig, 'signingKey'>, env: NodeJS.ProcessEnv = process.env): Promise<NoteSigner[]> {
  const configured = cfg.signingKey ?? env.HUB_SIGNING_KEY_FILE?.split(',');
  const files = (Array.isArray(configured) ? configured : configured ? [configured] : []).map((f) => f.trim()).filter(Boolean);
  const signers: NoteSigner[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(path.resolve(file), 'utf8');
    } catch (e) {
      throw new ConfigError(`Cannot read the signing key ${file}: ${(e as NodeJS.ErrnoException).code ?? 'unreadable'}`);
    }
    try {
      signers.push(await parseSignerKey(text));
    } catch (e) {
      throw new ConfigError(`The signing key ${file} is not usable: ${e instanceof NoteError ? e.message : 'unreadable'}`);
    }
  }
  return signers;
}
