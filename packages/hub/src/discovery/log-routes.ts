import {
  type Address,
  CHECKPOINT_MEDIA_TYPE,
  type CoreDeps,
  describeRoutes,
  errorResponse,
  type HubResponse,
  type LogAnnouncement,
  LogStateError,
  parseTilePath,
  type Route,
  readLogState,
  readTile,
} from '@hub/core-index';
import { LOG_API } from './api.js';

/** The one prefix the transparency log is served under (C2SP tlog-tiles: `<prefix>/checkpoint`, `<prefix>/tile/…`). */
export const LOG_PREFIX = '/api/hub/log';

/** The log as the descriptor and the archive announce it; undefined until a checkpoint has been signed. */
export async function logAnnouncement(deps: CoreDeps): Promise<LogAnnouncement | undefined> {
  let state: Awaited<ReturnType<typeof readLogState>>;
  try {
    state = await readLogState(deps.objects);
  } catch {
    return undefined;
  }
  if (!state.checkpoint || !state.origin) return undefined;
  return {
    prefix: LOG_PREFIX,
    checkpoint: `${LOG_PREFIX}/checkpoint`,
    origin: state.origin,
    size: state.checkpointSize ?? 0,
    keys: state.keys,
  };
}

function unreadable(deps: CoreDeps, e: LogStateError): HubResponse {
  deps.log.error({ event: 'log-unreadable', err: e.message }, 'the log ref is unreadable');
  return errorResponse('hub', 503, 'LogUnreadable', 'The transparency log of this hub is unreadable; the operator must rebuild the index.');
}

async function tile(deps: CoreDeps, path: string): Promise<HubResponse> {
  const t = parseTilePath(path);
  if (!t)
    return errorResponse(
      'hub',
      400,
      'BadTilePath',
      'A tile path is tile/<L>/<N>[.p/<W>] or tile/entries/<N>[.p/<W>], N in 3-digit elements (x001/234); a full tile (256) has no .p/<W>, a partial one W from 1 to 255 (C2SP tlog-tiles).',
    );
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readTile(deps.objects, await readLogState(deps.objects), t);
  } catch (e) {
    if (e instanceof LogStateError) return unreadable(deps, e);
    throw e;
  }
  if (!bytes) return errorResponse('hub', 404, 'TileNotFound', 'No such tile in this log at its current size.');
  return { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: bytes };
}

/**
 * The daily archive's transparency log (design 10.4), static resources as C2SP tlog-tiles serves them: the signed
 * checkpoint (mutable, cached for seconds), the hash tiles and the entry bundles (immutable: a tile path always names
 * the same bytes, a partial tile being the start of the wider one).
 */
function logRouteTable<D extends CoreDeps>(): Route<D>[] {
  return [
    {
      method: 'GET',
      path: `${LOG_PREFIX}/checkpoint`,
      rules: 'read',
      errors: 'hub',
      cache: 5,
      summary: "The log's newest checkpoint (C2SP tlog-checkpoint), a signed note (C2SP signed-note, Ed25519)",
      handler: async ({ deps }) => {
        let state: Awaited<ReturnType<typeof readLogState>>;
        try {
          state = await readLogState(deps.objects);
        } catch (e) {
          if (e instanceof LogStateError) return unreadable(deps, e);
          throw e;
        }
        const stored = state.checkpoint ? await deps.objects.get(state.checkpoint as Address) : undefined;
        if (!stored)
          return errorResponse(
            'hub',
            404,
            'NoCheckpoint',
            'This hub has not signed a checkpoint of its log yet: its operator sets signingKey (or HUB_SIGNING_KEY_FILE) and builds the index.',
          );
        return { status: 200, headers: { 'content-type': CHECKPOINT_MEDIA_TYPE }, body: stored.bytes };
      },
    },
    {
      method: 'GET',
      path: `${LOG_PREFIX}/tile/entries/*path`,
      rules: 'read',
      errors: 'hub',
      cache: 'immutable',
      summary: 'An entry bundle of the log: each archived day’s record, uint16-length-prefixed (C2SP tlog-tiles)',
      handler: ({ deps, params }) => tile(deps, `tile/entries/${params.path}`),
    },
    {
      method: 'GET',
      path: `${LOG_PREFIX}/tile/*path`,
      rules: 'read',
      errors: 'hub',
      cache: 'immutable',
      summary: 'A hash tile of the log: up to 256 consecutive Merkle tree hashes of one level (C2SP tlog-tiles)',
      handler: ({ deps, params }) => tile(deps, `tile/${params.path}`),
    },
  ];
}

/** {@link logRouteTable} with each route's API description (LOG_API) attached. */
export function logRoutes<D extends CoreDeps>(): Route<D>[] {
  return describeRoutes(logRouteTable<D>(), LOG_API);
}
