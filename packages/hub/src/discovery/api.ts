import {
  type ApiResponse,
  type ApiResponses,
  bin,
  header,
  JSON_CT,
  jsonContent,
  ok,
  type RouteApi,
  ref,
  str,
  textOk,
} from '@hub/core-index';

const sectionResponses: ApiResponses = {
  '200': {
    description: 'By Accept (or ?format=json|md|html): SectionDescriptor, the Markdown section brief, or the section page',
    headers: { Vary: header('Accept'), Link: header('alternate (descriptor), describedby (brief), service-desc (/openapi.json)') },
    content: { [JSON_CT]: { schema: ref('SectionDescriptor') }, 'text/markdown': { schema: str }, 'text/html': { schema: str } },
  },
};

const FORMAT = {
  name: 'format',
  description: 'json, md or html: overrides Accept',
  schema: { type: 'string', enum: ['json', 'md', 'html'] },
};
const BROWSE = [
  { name: 'sort', description: 'trending (default), downloads or likes', schema: str },
  { name: 'search', description: 'filter text: words the id, task or library contain (as /api/models)', schema: str },
  { name: 'q', description: 'the same as search', schema: str },
  { name: 'task', description: 'filter by task', schema: str },
  { name: 'library', description: 'filter by library', schema: str },
];

/** The discovery, site and archive routes' answers and query, beside them. */
export const DISCOVERY_API: Record<string, RouteApi> = {
  'GET /': {
    responses: ok('The website (text/html), the Descriptor (application/json) or the agent brief (text/markdown), by Accept', {
      [JSON_CT]: { schema: ref('Descriptor') },
      'text/markdown': { schema: str },
      'text/html': { schema: str },
    }),
  },
  'GET /.well-known/model-hub.json': { responses: ok('The Descriptor', jsonContent(ref('Descriptor'))) },
  'GET /agent.md': { responses: textOk('The one-screen agent brief; its last line is a canary', 'text/markdown') },
  'GET /api/hub/health': { responses: ok('HubHealth', jsonContent(ref('HubHealth'))) },
  'GET /openapi.json': { responses: ok('This document', jsonContent({ type: 'object' })) },
  'GET /.well-known/openapi.json': { responses: ok('This document (same bytes as /openapi.json)', jsonContent({ type: 'object' })) },
  'GET /.well-known/agent-card.json': { responses: ok('AgentCard', jsonContent(ref('AgentCard'))) },
  'GET /llms.txt': { responses: ok('The documentation index', { 'text/plain': { schema: str } }) },
  'GET /robots.txt': { responses: ok('robots.txt', { 'text/plain': { schema: str } }) },
  'GET /favicon.ico': { responses: ok('The favicon', { 'image/x-icon': { schema: bin } }) },
  'GET /health': { responses: textOk('Source health for people', 'text/html') },
  'GET /docs/:page': {
    responses: {
      '200': {
        description: 'A docs page: `name.md` is Markdown, `name` its HTML twin; `api.md` is this document in Markdown',
        content: { 'text/markdown': { schema: str }, 'text/html': { schema: str } },
      },
      '404': { description: 'No such page (an HTML page)', content: { 'text/html': { schema: str } } },
    },
  },
  'GET /models/:owner/:name': {
    responses: {
      ...textOk('The model page: files with sizes and SHA-256, sources and their health, commands', 'text/html'),
      '404': { description: 'Not in the index (an HTML page)', content: { 'text/html': { schema: str } } },
    },
  },
  'GET /models/:owner': {
    responses: {
      ...textOk("One owner's models", 'text/html'),
      '404': { description: 'No model by that owner (an HTML page)', content: { 'text/html': { schema: str } } },
    },
  },
  'GET /models/': {
    responses: {
      '200': {
        ...sectionResponses['200'],
        description:
          'The browse page (text/html) to browsers; the SectionDescriptor to Accept: application/json; the section brief (same bytes as /models) to others',
      } as ApiResponse,
      '400': { description: 'An unknown sort (an HTML page)', content: { 'text/html': { schema: str } } },
    },
  },
};

for (const p of ['/models', '/registry', '/spaces', '/buckets', '/docs']) {
  DISCOVERY_API[`GET ${p}`] = { responses: sectionResponses, query: [FORMAT] };
  if (p !== '/models') DISCOVERY_API[`GET ${p}/`] = { responses: sectionResponses, query: [FORMAT] };
}
(DISCOVERY_API['GET /models/'] as RouteApi).query = [...BROWSE, FORMAT];

/** The archive routes' answers (archive-routes.ts). */
export const ARCHIVE_API: Record<string, RouteApi> = {
  'GET /api/hub/archive': { responses: ok('Archive: the daily indexes, newest first, chained through prev', jsonContent(ref('Archive'))) },
  'GET /api/hub/pins': { responses: ok('Pins', jsonContent(ref('Pins'))) },
};

/** The transparency log's routes (log-routes.ts). */
export const LOG_API: Record<string, RouteApi> = {
  'GET /api/hub/log/checkpoint': {
    responses: {
      '200': {
        description: "The log's checkpoint (C2SP tlog-checkpoint: origin, tree size, base64 root hash) as a C2SP signed note (Ed25519)",
        content: { 'text/plain; charset=utf-8': { schema: str } },
      },
      '404': { description: 'NoCheckpoint: no signing key has signed the log yet', content: jsonContent(ref('HubError')) },
    },
  },
  'GET /api/hub/log/tile/entries/*path': {
    responses: {
      '200': {
        description:
          'An entry bundle (C2SP tlog-tiles): each archived day as a big-endian uint16 length and its model-hub.log-entry record',
        content: { 'application/octet-stream': { schema: bin } },
      },
    },
  },
  'GET /api/hub/log/tile/*path': {
    responses: {
      '200': {
        description: 'A hash tile (C2SP tlog-tiles): up to 256 consecutive 32-byte RFC 6962 Merkle tree hashes of one level',
        content: { 'application/octet-stream': { schema: bin } },
      },
    },
  },
};

/** The addresses a new user tries on the site (site/alias-routes.ts). */
export const ALIAS_API: Record<string, RouteApi> = {
  'GET /:owner/:name': {
    responses: {
      '302': { description: 'The model page, /models/{owner}/{name} (Location)', headers: { Location: header('the model page') } },
      '404': { description: 'Not in the index: the site page to a browser, text otherwise', content: { 'text/plain': { schema: str } } },
    },
  },
  'GET /:owner/:name/blob/:rev/*path': {
    responses: {
      '302': {
        description: 'The file, /{owner}/{name}/resolve/{rev}/{path} (Location)',
        headers: { Location: header('the download route') },
      },
      '404': { description: 'Not in the index', content: { 'text/plain': { schema: str } } },
    },
  },
};
