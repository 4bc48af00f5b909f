/** The sources a hub redirects to, from its configuration and the mirrors it runs beside itself (design 10.3). */
import type { SourceConfig } from '@hub/core-index';
import { mergeSources } from '@hub/hub';
import { type DemoMirror, demoSource } from '@hub/node-toolkit';
import type { HubConfigFile } from './config.js';

/** The health key of the data folder's own mirror (`DIR/mirror`; design 10.3). */
export const LOCAL_MIRROR = 'local-mirror';

export function sourcesFromConfig(
  config: HubConfigFile,
  demo?: DemoMirror,
  localMirror?: { url: string; beside: boolean },
  airGapped = false,
): SourceConfig[] {
  // The demo mirror and the data folder's mirror run beside the hub, where it listens: their redirects name the host
  // the client reached the hub by (onHubHost). A mirror URL the config names is used as written.
  const own: SourceConfig[] = demo ? [demoSource(demo.template, { onHubHost: true })] : [];
  if (localMirror)
    own.push({
      name: LOCAL_MIRROR,
      display: 'Local mirror',
      token: 'mirror',
      kind: 'mirror',
      url: localMirror.url,
      ...(localMirror.beside ? { onHubHost: true } : {}),
    });
  const merged = mergeSources(config.sources ?? [], own);
  // Air-gapped (a data folder filled by `hub bundle import`): only mirrors and the sources the config names are
  // redirected to; the index's public hosts are unreachable from here, so a file no mirror holds answers 503.
  if (!airGapped) return merged;
  const named = new Set((config.sources ?? []).filter((s) => s.name !== LOCAL_MIRROR).map((s) => s.name));
  return merged.map((s) => (s.kind === 'mirror' || named.has(s.name) ? s : { ...s, redirect: false }));
}
