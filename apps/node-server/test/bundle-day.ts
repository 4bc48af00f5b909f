import path from 'node:path';
import { nodeGetBytes, nodeHasher } from '@hub/client/node';
import { buildWithPages, syntheticModelStream } from '@hub/core-index/testing';
import { FsObjectStore } from '@hub/objects/node';
import { bundleCreate } from '../src/bundle.js';
import { createLogger } from '../src/logger.js';
import { type RunningHub, startServer } from '../src/server.js';

/**
 * A day of `n` SYNTHETIC models built with their index pages into a fresh data folder (`tmp(prefix + '-a-')`), served
 * by a hub (pushed on `started`, for the caller to close), and its index bundled from that hub over HTTP as `hub
 * bundle create` does with no model named (`tmp(prefix + '-out-')/day`).
 */
export async function bundledSyntheticDay(
  n: number,
  prefix: string,
  tmp: (prefix: string) => Promise<string>,
  started: RunningHub[],
): Promise<{ hubA: RunningHub; built: { catalog: string; pages: string }; bundle: string }> {
  const dataA = await tmp(`${prefix}-a-`);
  const built = await buildWithPages(new FsObjectStore(dataA), syntheticModelStream(n));
  const logger = createLogger({ level: 'silent' });
  const hubA = await startServer({ dataDir: dataA, port: 0, host: '127.0.0.1', logger, config: { demo: false } });
  started.push(hubA);
  const bundle = path.join(await tmp(`${prefix}-out-`), 'day');
  await bundleCreate({ hub: hubA.url, hasher: nodeHasher, getBytes: nodeGetBytes }, bundle, []);
  return { hubA, built, bundle };
}
