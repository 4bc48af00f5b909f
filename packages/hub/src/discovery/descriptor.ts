import { type CoreDeps, type Descriptor, type IndexStore, type LogAnnouncement, type PreparedBody, prepare } from '@hub/core-index';
import { logAnnouncement } from './log-routes.js';

/** The Descriptor (`svc.model-hub.descriptor/v1`). Every URL in it is a path on this host. */
export function buildDescriptor(index: IndexStore): Descriptor {
  return {
    format: 'svc.model-hub.descriptor/v1',
    name: 'model hub',
    about:
      'A read-only hub for open model files: names, addresses and directions, never weight bytes. Downloads redirect to a live source and carry the SHA-256 from the index.',
    catalog: index.catalogAddress,
    snapshot: index.snapshot,
    fetch: '/api/v1/objects/{id}',
    find: 'Browse rows are in the catalog object; search with GET /api/models?search=…, or the hub_repo_search tool at /mcp. Listing objects on the server (GET /api/v1/objects) needs a publisher token.',
    publish: 'POST /api/v1/objects with a publisher token; the server computes the address.',
    openapi: '/openapi.json',
    capabilities: '/api/v1/capabilities',
    registry: '/v2/',
    guide: '/llms.txt',
    addresses: {
      objects: 'blake3: BLAKE3 of the object bytes (canonical JSON, RFC 8785, for index objects)',
      files: 'sha256: SHA-256 of the file bytes, listed in the model object',
    },
    kinds: {
      'model-hub.catalog':
        "today's browse rows, an objects map from model id to {model: <address>, sources: [<address>]}, and prev; over 32 MiB its rows and objects are empty and shards [{address, models}] name the model-hub.catalog-shard objects that hold them, in order",
      'model-hub.catalog-shard': 'a contiguous run of a sharded catalog: rows (browse order) and their objects entries',
      'model-hub.model': 'one revision of one model: id, revision, license, files[{path,size,sha256}], facts, prev',
      'model-hub.source': 'one place the bytes of one revision can be fetched: ipfs, http or svc chunks on any object server',
    },
  };
}

/** The descriptor's value: the index's, with the transparency log's announcement once a checkpoint is signed. */
function descriptorValue(index: IndexStore, log: LogAnnouncement | undefined): Descriptor & { log?: LogAnnouncement } {
  return { ...buildDescriptor(index), ...(log ? { log } : {}) };
}

/** The log's announcement (`log`: its prefix, checkpoint URL, origin and verifier keys), read once per index. */
function announcedLog(index: IndexStore, deps: CoreDeps): Promise<LogAnnouncement | undefined> {
  return index.memo('log-announcement', () => logAnnouncement(deps));
}

/**
 * The descriptor as served (same bytes on `/` with JSON and on `/.well-known/model-hub.json`), prepared once per index
 * (the log is appended before an index switch).
 */
export async function descriptorOf(deps: CoreDeps): Promise<PreparedBody> {
  const index = deps.index();
  const log = await announcedLog(index, deps);
  return index.memo('descriptor', () =>
    prepare(`${JSON.stringify(descriptorValue(index, log), null, 2)}\n`, 'application/json; charset=utf-8'),
  );
}

/**
 * The same descriptor as a value, for the MCP resource `hub://descriptor`, so an agent reading either learns the same.
 */
export async function servedDescriptor(index: IndexStore, deps: CoreDeps): Promise<unknown> {
  return descriptorValue(index, await announcedLog(index, deps));
}
