import { type ApiResponses, arrayOf, header, JSON_CT, jsonContent, ok, type RouteApi, ref, str } from '@hub/core-index';

const REDIRECT_HEADERS = {
  Location: header('the source URL'),
  'X-Hub-Source': header('health key of the chosen source'),
  'X-Repo-Commit': header('the indexed 40-hex commit'),
  'X-Linked-Etag': header('"<sha256>": the SHA-256 the bytes must have, from the index'),
  'X-Linked-Size': header('size in bytes'),
  'Repr-Digest': header('sha-256=:<base64>:'),
  Link: header(
    'every live source holding the file, the chosen one first, as RFC 6249 duplicates: <URL>; rel="duplicate"; pri=N; hub-source="health key"',
  ),
};

const resolveResponses: ApiResponses = {
  '302': {
    description: 'Redirect to a live source that holds the file',
    headers: REDIRECT_HEADERS,
    content: { 'text/plain': { schema: str } },
  },
  '200': { description: 'SHA256SUMS: one `<sha256>  <path>` line per file, for sha256sum -c', content: { 'text/plain': { schema: str } } },
  '403': {
    description: "PolicyRefused (X-Error-Code): the operator's serving policy refuses this file; the message names the rule",
    content: jsonContent(ref('HubError')),
  },
  '404': { description: 'RepoNotFound, RevisionNotFound or EntryNotFound (X-Error-Code)', content: jsonContent(ref('HubError')) },
  '503': { description: 'Sources hold the file but none is live; Retry-After is set', content: jsonContent(ref('HubError')) },
};

const INFO_QUERY = [
  {
    name: 'securityStatus',
    description: "true: add securityRepoStatus {scansDone, filesWithIssues[{path, level}]}, the public host's scan verdicts",
    schema: { type: 'boolean' },
  },
];

const PATHS_INFO = { type: 'object', properties: { paths: { anyOf: [str, { type: 'array', items: str }] }, expand: { type: 'boolean' } } };

/** The model-host dialect's answers, query and bodies, beside its routes (collected into /openapi.json). */
export const HF_API: Record<string, RouteApi> = {
  'GET /api/models': {
    responses: {
      '200': {
        description: 'An array of ModelRow; Link rel="next" when more remain',
        content: jsonContent(arrayOf('ModelRow')),
        headers: { Link: header('next page') },
      },
    },
    query: [
      { name: 'limit', description: '1 to 500, default 50', schema: { type: 'integer', minimum: 1, maximum: 500 } },
      { name: 'search', description: 'words that must all appear in the id', schema: str },
      { name: 'author', description: 'owner', schema: str },
      {
        name: 'filter',
        description: 'tags (repeat or comma-separate); signature:verified and the other verdicts count as tags',
        schema: str,
      },
      {
        name: 'signature',
        description: 'models whose own model.sig has this verdict (svc.signature.status)',
        schema: { type: 'string', enum: ['verified', 'failed', 'incomplete', 'needs-bytes'] },
      },
      { name: 'pipeline_tag', description: 'task', schema: str },
      { name: 'library', description: 'library', schema: str },
      { name: 'sort', description: 'trendingScore (default), downloads, likes, createdAt, lastModified, id', schema: str },
      { name: 'direction', description: '-1 or 1', schema: str },
      { name: 'cursor', description: 'from a Link rel="next"', schema: str },
    ],
  },
  'GET /api/models/:owner/:name': { responses: ok('ModelInfo', jsonContent(ref('ModelInfo'))), query: INFO_QUERY },
  'GET /api/models/:owner/:name/revision/*rev': { responses: ok('ModelInfo', jsonContent(ref('ModelInfo'))), query: INFO_QUERY },
  'GET /api/models/:owner/:name/tree/:rev': { responses: ok('TreeEntry array', jsonContent(arrayOf('TreeEntry'))) },
  'GET /api/models/:owner/:name/tree/:rev/*path': { responses: ok('TreeEntry array', jsonContent(arrayOf('TreeEntry'))) },
  'GET /api/models/:owner/:name/refs': { responses: ok('Refs', jsonContent(ref('Refs'))) },
  'POST /api/models/:owner/:name/paths-info/*rev': {
    responses: ok('TreeEntry for each named path that exists', jsonContent(arrayOf('TreeEntry'))),
    body: { required: true, content: { [JSON_CT]: { schema: PATHS_INFO }, 'application/x-www-form-urlencoded': { schema: PATHS_INFO } } },
  },
  'GET /api/models/:owner': {
    responses: { '404': { description: 'RepoNotFound: ids are owner/name', content: jsonContent(ref('HubError')) } },
  },
  'GET /:owner/:name/resolve/:rev/*path': { responses: resolveResponses },
  'GET /:owner/:name/raw/:rev/*path': { responses: resolveResponses },
  'GET /via/:token/:owner/:name/resolve/:rev/*path': { responses: resolveResponses },
  'GET /via/:token/:owner/:name/raw/:rev/*path': { responses: resolveResponses },
};
