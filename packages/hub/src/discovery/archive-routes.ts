import {
  ARCHIVE_REGISTRY,
  type Archive,
  type CoreDeps,
  describeRoutes,
  emptyPins,
  errorResponse,
  type Pins,
  type PreparedBody,
  parsePins,
  prepare,
  type Route,
  readArchive,
  sendPrepared,
} from '@hub/core-index';
import { ARCHIVE_API } from './api.js';
import { logAnnouncement } from './log-routes.js';

class Unreadable extends Error {}

async function archiveBody(deps: CoreDeps): Promise<PreparedBody> {
  const archive = await readArchive(deps.objects);
  const gateway = archive.gateway ?? deps.health.source('ipfs')?.url;
  const log = await logAnnouncement(deps);
  const body: Archive = {
    format: 'svc.model-hub.archive/v1',
    days: archive.days,
    ...(gateway ? { gateway } : {}),
    ...(archive.mirror ? { mirror: archive.mirror } : {}),
    registry: archive.registry ?? ARCHIVE_REGISTRY,
    ...(log ? { log } : {}),
  };
  return prepare(body);
}

async function pinsBody(deps: CoreDeps): Promise<PreparedBody> {
  const raw = await deps.objects.readRef('pins');
  let pins: Pins = emptyPins(deps.health.source('ipfs')?.url);
  if (raw) {
    try {
      pins = parsePins(raw);
    } catch (e) {
      throw new Unreadable((e as Error).message);
    }
  }
  // Hidden pins are kept by the operator but not advertised.
  const models = Object.fromEntries(Object.entries(pins.models).filter(([, p]) => !p.hidden));
  return prepare({ ...pins, models });
}

/**
 * `GET /api/hub/archive` (Archive: the days chained through `prev`, newest first, with counts and the
 * code commit that built each) and `GET /api/hub/pins` (Pins). Both change only with a new index, so
 * each is prepared once per index.
 */
function archiveRouteTable<D extends CoreDeps>(): Route<D>[] {
  return [
    {
      method: 'GET',
      path: '/api/hub/archive',
      rules: 'read',
      group: 'discovery',
      errors: 'hub',
      cache: 60,
      summary: 'The archive of daily indexes (Archive), newest day first, chained through prev',
      handler: async ({ deps }) => sendPrepared(await deps.index().memo('hub:archive', () => archiveBody(deps))),
    },
    {
      method: 'GET',
      path: '/api/hub/pins',
      rules: 'read',
      group: 'discovery',
      errors: 'hub',
      cache: 60,
      summary: 'Models whose weights are pinned on IPFS (Pins)',
      handler: async ({ deps }) => {
        try {
          return sendPrepared(await deps.index().memo('hub:pins', () => pinsBody(deps)));
        } catch (e) {
          if (!(e instanceof Unreadable)) throw e;
          deps.log.error({ event: 'pins-unreadable', err: e.message }, 'the pins ref is unreadable');
          return errorResponse(
            'hub',
            503,
            'PinsUnreadable',
            `The operator's pins document is unreadable (${e.message.slice(0, 200)}); fix pins.json in the data folder and rebuild the index.`,
          );
        }
      },
    },
  ];
}

/** {@link archiveRouteTable} with each route's API description (ARCHIVE_API) attached. */
export function archiveRoutes<D extends CoreDeps>(): Route<D>[] {
  return describeRoutes(archiveRouteTable<D>(), ARCHIVE_API);
}
