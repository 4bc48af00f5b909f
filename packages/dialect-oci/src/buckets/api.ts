import { bin, header, jsonContent, ok, type RouteApi, ref } from '@hub/core-index';
import { MANIFEST_TYPES } from '../api.js';

/** The bucket routes' answers, beside them. */
export const BUCKET_API: Record<string, RouteApi> = {
  'GET /v2/hub/buckets/:bucket/tags/list': { responses: ok('The tags of a bucket (OciTagList)', jsonContent(ref('OciTagList'))) },
  'GET /v2/hub/buckets/:bucket/manifests/:reference': {
    responses: {
      '200': {
        description: 'The manifest or index a tag or digest names, as it was pushed; Content-Type is its media type',
        headers: { 'Docker-Content-Digest': header('sha256 of the bytes') },
        content: Object.fromEntries(
          [...MANIFEST_TYPES, 'application/vnd.oci.image.index.v1+json', 'application/vnd.docker.distribution.manifest.list.v2+json'].map(
            (t) => [t, { schema: { type: 'object' } }],
          ),
        ),
      },
    },
  },
  'GET /v2/hub/buckets/:bucket/blobs/:digest': {
    responses: {
      '200': { description: 'The blob bytes (the hub holds them); their sha256 is the digest', content: { '*/*': { schema: bin } } },
      '206': { description: 'A range of the blob', content: { '*/*': { schema: bin } } },
    },
  },
  'POST /v2/hub/buckets/:bucket/blobs/uploads/': {
    responses: {
      '201': {
        description: 'Uploaded whole (?digest=) or mounted (?mount=&from=)',
        headers: { Location: header('the blob'), 'Docker-Content-Digest': header('its digest') },
      },
      '202': {
        description: 'An upload session started',
        headers: { Location: header('the session'), 'Docker-Upload-UUID': header('its id'), Range: header('0-0') },
      },
    },
  },
  'GET /v2/hub/buckets/:bucket/blobs/uploads/:uuid': {
    responses: {
      '204': { description: 'Where the upload stands', headers: { Range: header('0-<last byte received>') } },
    },
  },
  'PATCH /v2/hub/buckets/:bucket/blobs/uploads/:uuid': {
    responses: {
      '202': {
        description: 'The chunk was appended',
        headers: { Location: header('the session'), Range: header('0-<last byte received>') },
      },
    },
  },
  'PUT /v2/hub/buckets/:bucket/blobs/uploads/:uuid': {
    responses: {
      '201': {
        description: 'Closed: the bytes hashed to ?digest= and are stored',
        headers: { Location: header('the blob'), 'Docker-Content-Digest': header('its digest') },
      },
    },
  },
  'DELETE /v2/hub/buckets/:bucket/blobs/uploads/:uuid': { responses: { '204': { description: 'The upload was cancelled' } } },
  'PUT /v2/hub/buckets/:bucket/manifests/:reference': {
    responses: {
      '201': {
        description: 'The manifest or index is stored (and tagged)',
        headers: { Location: header('the manifest by digest'), 'Docker-Content-Digest': header('its digest') },
      },
    },
  },
};
