import { arrayOf, bin, header, JSON_CT, jsonContent, ok, type RouteApi, ref } from '@hub/core-index';

/** The object routes' answers and bodies, beside them. */
export const OBJECT_API: Record<string, RouteApi> = {
  'GET /api/v1/objects/:address': {
    responses: {
      '200': {
        description: 'The object bytes, with X-Object-Kind and the media type given at publish; BLAKE3 of the bytes equals the address',
        content: {
          [JSON_CT]: {
            schema: {
              oneOf: [
                ref('CatalogObject'),
                ref('ModelObject'),
                ref('SourceObject'),
                ref('SpaceObject'),
                ref('SpacesCatalog'),
                ref('BucketsCatalog'),
              ],
            },
          },
          '*/*': { schema: bin },
        },
      },
    },
  },
  'GET /api/v1/objects/:address/meta': { responses: ok('ObjectMetadata', jsonContent(ref('ObjectMetadata'))) },
  'GET /api/v1/capabilities': { responses: ok('CapabilityManifest', jsonContent(ref('CapabilityManifest'))) },
  'GET /api/v1/health': { responses: ok('HealthResponse', jsonContent(ref('HealthResponse'))) },
};

/** The publish routes' answers and body (publisher token), beside them. */
export const PUBLISH_API: Record<string, RouteApi> = {
  'GET /api/v1/objects': {
    responses: {
      '200': {
        description: 'A page of ObjectMetadata (publisher token): filter by kind and prefix; next is the cursor of the next page',
        content: jsonContent({
          type: 'object',
          required: ['items', 'next'],
          properties: { items: arrayOf('ObjectMetadata'), next: { type: ['string', 'null'] } },
        }),
        headers: { Link: header('next page') },
      },
    },
  },
  'POST /api/v1/objects': {
    responses: {
      '201': { description: 'Stored: ObjectMetadata; Location is the object URL', content: jsonContent(ref('ObjectMetadata')) },
      '200': { description: 'Already stored: ObjectMetadata', content: jsonContent(ref('ObjectMetadata')) },
    },
    body: {
      required: true,
      content: { '*/*': { schema: bin } },
      description: 'The raw bytes; Content-Type is the media type, X-Object-Kind the kind',
    },
  },
};
