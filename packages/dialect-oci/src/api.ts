import { type ApiResponses, bin, header, jsonContent, ok, type RouteApi, ref, str } from '@hub/core-index';

/** The manifest media types a pull may get. */
export const MANIFEST_TYPES = ['application/vnd.docker.distribution.manifest.v2+json', 'application/vnd.oci.image.manifest.v1+json'];

/** Every registry write under /v2/ outside a bucket: 401 without the registry token, 405 with it. */
export const OCI_WRITE: ApiResponses = {
  '401': { description: 'No registry token: writes under /v2/ (bucket pushes) need one', content: jsonContent(ref('OciError')) },
  '405': {
    description: 'With the registry token: not a bucket path, or the edge (which accepts no push)',
    content: jsonContent(ref('OciError')),
  },
};

/** The OCI dialect's answers and query, beside its routes; every registry write answers as OCI_WRITE. */
export const OCI_API: Record<string, RouteApi> = {
  'GET /v2/': { responses: ok('API version check: an empty object', jsonContent({ type: 'object' })) },
  'GET /v2': { responses: ok('API version check: an empty object', jsonContent({ type: 'object' })) },
  'GET /v2/_catalog': {
    responses: ok('OciCatalog', jsonContent(ref('OciCatalog'))),
    query: [
      { name: 'n', description: 'page size', schema: { type: 'integer', minimum: 0 } },
      { name: 'last', description: 'entries after this one', schema: str },
    ],
  },
  'GET /v2/:owner/:name/tags/list': { responses: ok('OciTagList', jsonContent(ref('OciTagList'))) },
  'GET /v2/:owner/:name/manifests/:reference': {
    responses: {
      '200': {
        description: 'The manifest; Content-Type is its mediaType',
        content: Object.fromEntries(MANIFEST_TYPES.map((t) => [t, { schema: ref('OciManifest') }])),
      },
      '403': { description: "PolicyRefused: the operator's serving policy refuses the whole model", content: jsonContent(ref('OciError')) },
    },
  },
  'GET /v2/:owner/:name/blobs/:digest': {
    responses: {
      '307': { description: 'A weight layer: redirect to a live source', headers: { Location: header('the source URL') } },
      '200': { description: 'A hub-made blob (config, template, params, licence)', content: { '*/*': { schema: bin } } },
      '206': { description: 'A range of a hub-made blob', content: { '*/*': { schema: bin } } },
      '403': {
        description: "PolicyRefused: the operator's serving policy refuses this layer's file",
        content: jsonContent(ref('OciError')),
      },
    },
  },
  'GET /v2/*rest': {
    responses: { '404': { description: 'No registry route: repositories are {owner}/{name}', content: jsonContent(ref('OciError')) } },
  },
};
