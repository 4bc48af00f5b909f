import type { RouteApi } from '@hub/core-index';

/** The answers of the spaces routes, beside them (collected into /openapi.json). */

const str = { type: 'string' };
const bin = { type: 'string', format: 'binary' };
const header = (description: string) => ({ description, schema: str });
const hubError = { 'application/json': { schema: { $ref: '#/components/schemas/HubError' } } };

const fileAnswer = (what: string) => ({
  '200': {
    description: `${what}: the bytes with the media type listed in the space object`,
    headers: {
      ETag: header('"blake3:…": the address of the file bytes, as listed in the space object'),
      'Content-Security-Policy': header('sandbox allow-scripts allow-forms allow-downloads (an opaque origin; never allow-same-origin)'),
      'X-Content-Type-Options': header('nosniff'),
      'Cache-Control': header('public, max-age=60 by name; public, max-age=31536000, immutable under blake3:{root}'),
      'X-Space-Root': header('the root (address of the model-hub.space object) this answer came from'),
    },
    content: { '*/*': { schema: bin } },
  },
  '404': { description: 'No such space, root or file: the error names the spaces or files that exist', content: hubError },
});

const SPACE_RESPONSES = {
  'GET /spaces/:name': {
    '301': {
      description: 'Redirect to /spaces/{name}/ (relative links of the space resolve inside it)',
      headers: { Location: header('/spaces/{name}/') },
    },
  },
  'GET /spaces/:name/': fileAnswer("The space's entry file ({name} is a space name or blake3:{root})"),
  'GET /spaces/:name/*path': fileAnswer('One file of the space'),
  'GET /spaces/-/:name': {
    '200': {
      description: 'The site page of one space: title, root, previous version, files with addresses',
      content: { 'text/html': { schema: str } },
    },
    '404': { description: 'No space by that name (plain text naming the spaces here)', content: { 'text/plain': { schema: str } } },
  },
};

export const SPACE_API: Record<string, RouteApi> = Object.fromEntries(
  Object.entries(SPACE_RESPONSES).map(([k, responses]) => [k, { responses }]),
);
