import { type AccountDeps, accountRoutes } from '@hub/account';
import type { CoreDeps, Route } from '@hub/core-index';
import { hfRoutes } from '@hub/dialect-hf';
import { type BucketDeps, bucketRoutes, ociRoutes } from '@hub/dialect-oci';
import { mcpRoutes } from '@hub/mcp';
import { objectRoutes, publishRoutes } from '@hub/objects';
import { archiveRoutes } from './discovery/archive-routes.js';
import { servedDescriptor } from './discovery/descriptor.js';
import { logRoutes } from './discovery/log-routes.js';
import { discoveryRoutes } from './discovery/routes.js';
import { siteAliasRoutes } from './site/alias-routes.js';
import { spaceRoutes } from './spaces/routes.js';

/** Everything a full hub needs; each dialect adds its own interfaces here as it lands. */
export type HubDeps = CoreDeps & AccountDeps & BucketDeps;

/** Every route of every package, in one list; `createHub` compiles it into one table. */
export function hubRoutes(): Route<HubDeps>[] {
  // The machine description covers the whole table, so discovery gets it lazily.
  const routes: Route<HubDeps>[] = [
    ...discoveryRoutes<HubDeps>({ routes: () => routes }),
    ...objectRoutes<HubDeps>(),
    ...publishRoutes<HubDeps>(),
    ...archiveRoutes<HubDeps>(),
    ...logRoutes<HubDeps>(),
    ...spaceRoutes<HubDeps>(),
    ...hfRoutes<HubDeps>(),
    ...siteAliasRoutes<HubDeps>(),
    ...bucketRoutes<HubDeps>(),
    ...ociRoutes<HubDeps>(),
    ...accountRoutes<HubDeps>(),
    ...mcpRoutes<HubDeps>({ descriptor: (index, _origin, deps) => servedDescriptor(index, deps) }),
  ];
  return routes;
}
