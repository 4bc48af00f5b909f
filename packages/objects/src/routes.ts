import {
  type CapabilityManifest,
  type CoreDeps,
  describeRoutes,
  errorResponse,
  type HealthResponse,
  isAddress,
  json,
  type Route,
} from '@hub/core-index';
import { OBJECT_API } from './api.js';

export const PROTOCOL_VERSION = 1;
export const SERVER_VERSION = '1.0.0';
/** The server's own message limit (spec: 33554432); the edge's request limit is lower (8 MiB). */
export const MAXIMUM_MESSAGE_BYTES = 33_554_432;

function badAddress(address: string) {
  return errorResponse(
    'objects',
    400,
    'INVALID_ADDRESS',
    `${JSON.stringify(address.slice(0, 100))} is not an object address; addresses are blake3: followed by 64 lowercase hex characters.`,
  );
}

function notFound(address: string) {
  return errorResponse(
    'objects',
    404,
    'LIVE_NOT_FOUND',
    `No object at ${address}. Addresses come from the descriptor (/.well-known/model-hub.json) and the catalog.`,
  );
}

/** The operations this server offers, as the capability manifest lists them. */
export const OPERATIONS: CapabilityManifest['operations'] = [
  { id: 'objects.get', kind: 'read', fallback_safe_before_dispatch: true },
  { id: 'objects.meta', kind: 'read', fallback_safe_before_dispatch: true },
  { id: 'objects.list', kind: 'read', fallback_safe_before_dispatch: true },
  { id: 'objects.put', kind: 'mutation', fallback_safe_before_dispatch: false },
  { id: 'capabilities.get', kind: 'read', fallback_safe_before_dispatch: true },
  { id: 'health.get', kind: 'read', fallback_safe_before_dispatch: true },
];

export function capabilityManifest(deps: CoreDeps): CapabilityManifest {
  return {
    protocol_version: PROTOCOL_VERSION,
    server_version: SERVER_VERSION,
    server_id: deps.settings.serverId,
    role: deps.settings.role,
    operations: OPERATIONS,
    modules: [
      {
        id: 'objects',
        name: 'BLAKE3 object store',
        version: SERVER_VERSION,
        state: 'ready',
        dependencies: [],
        operations: ['objects.get', 'objects.meta', 'objects.list', 'objects.put'],
      },
      {
        id: 'index',
        name: 'Daily model index',
        version: SERVER_VERSION,
        state: 'ready',
        dependencies: ['objects'],
        operations: ['capabilities.get', 'health.get'],
      },
    ],
    maximum_message_bytes: MAXIMUM_MESSAGE_BYTES,
  };
}

/** Read routes of the object dialect (publishing lives in the publish routes). */
function objectRouteTable<D extends CoreDeps>(): Route<D>[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/objects/:address',
      rules: 'read',
      group: 'objects',
      errors: 'objects',
      cache: 'immutable',
      // The bytes at an address never change: a found object's answer is kept (up to the cache's size limit per
      // answer) until the next index; a 404 is never kept, so an object published later is found on the next ask.
      reuse: 'index',
      summary: 'The bytes of one object',
      handler: async ({ params, deps }) => {
        const address = params.address as string;
        if (!isAddress(address)) return badAddress(address);
        const stored = await deps.objects.get(address);
        if (!stored) return notFound(address);
        return {
          status: 200,
          headers: {
            'content-type': stored.meta.media_type,
            'x-object-kind': stored.meta.kind,
            etag: `"${address}"`,
          },
          body: stored.bytes,
        };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/objects/:address/meta',
      rules: 'read',
      group: 'objects',
      errors: 'objects',
      cache: 'immutable',
      summary: 'ObjectMetadata of one object',
      handler: async ({ params, deps }) => {
        const address = params.address as string;
        if (!isAddress(address)) return badAddress(address);
        const meta = await deps.objects.meta(address);
        if (!meta) return notFound(address);
        return json(200, meta, { etag: `"${address}.meta"` });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/capabilities',
      rules: 'read',
      group: 'objects',
      errors: 'objects',
      cache: 300,
      summary: 'CapabilityManifest',
      handler: ({ deps }) => json(200, capabilityManifest(deps)),
    },
    {
      method: 'GET',
      path: '/api/v1/health',
      rules: 'read',
      group: 'objects',
      errors: 'objects',
      cache: 'no-store',
      summary: 'HealthResponse',
      handler: ({ deps }) => {
        const body: HealthResponse = {
          status: 'ok',
          version: SERVER_VERSION,
          role: deps.settings.role,
          modules_ready: capabilityManifest(deps).modules.filter((m) => m.state === 'ready').length,
        };
        return json(200, body);
      },
    },
  ];
}

/** {@link objectRouteTable} with each route's API description (OBJECT_API) attached. */
export function objectRoutes<D extends CoreDeps>(): Route<D>[] {
  return describeRoutes(objectRouteTable<D>(), OBJECT_API);
}
