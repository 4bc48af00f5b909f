import { createHub, type Hub } from '@hub/core-index';
import { createTestHub, type TestHub } from '@hub/core-index/testing';
import { type HubDeps, hubRoutes } from '../routes.js';

/** The composed hub (every package's routes, `hubRoutes()`) over these deps, type-checked at the seam. */
export function composedHub(deps: HubDeps): Hub {
  return createHub<HubDeps>(deps, hubRoutes());
}

/**
 * core-index's in-memory test hub (SYNTHETIC models, two http mirrors) composed with every route of the hub, so a
 * test never casts its deps; `deps` replaces fields (accounts, metrics, settings, …).
 */
export async function createComposedTestHub(
  options: Parameters<typeof createTestHub>[0] = {},
  deps: Partial<HubDeps> = {},
): Promise<Omit<TestHub, 'deps'> & { deps: HubDeps; hub: Hub }> {
  const t = await createTestHub(options);
  const all: HubDeps = { ...t.deps, ...deps };
  return { ...t, deps: all, hub: composedHub(all) };
}
