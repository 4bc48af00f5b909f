import { besideNotes, errorResponse, type HubResponse } from '@hub/core-index';

/**
 * Every error of the OCI dialect leaves through here: `{errors:[{code, message}]}` (spec: Error bodies, OciError).
 * Codes are those of the distribution spec; messages name the fix.
 */
export function ociError(status: number, code: string, message: string, headers: Record<string, string> = {}): HubResponse {
  return errorResponse('oci', status, code, message, headers);
}

export function nameUnknown(name: string): HubResponse {
  return ociError(
    404,
    'NAME_UNKNOWN',
    `The repository ${name} is not in today's index (the request was recorded for the next index run). Repositories are {owner}/{name}; see /v2/_catalog.`,
  );
}

export function nameInvalid(name: string, why: string): HubResponse {
  return ociError(400, 'NAME_INVALID', `${JSON.stringify(name.slice(0, 200))} is not a repository name: ${why}`);
}

export function manifestUnknown(name: string, reference: string, tags: readonly string[], extra = ''): HubResponse {
  const shown = tags.slice(0, 20).join(', ') + (tags.length > 20 ? ', …' : '');
  return ociError(
    404,
    'MANIFEST_UNKNOWN',
    `${name} has no manifest ${JSON.stringify(reference.slice(0, 200))}.${extra ? ` ${extra}` : ''} Its tags are: ${shown}; see /v2/${name}/tags/list.`,
  );
}

export function blobUnknown(name: string, digest: string): HubResponse {
  return ociError(
    404,
    'BLOB_UNKNOWN',
    `${name} has no blob ${digest.slice(0, 100)}. Blob digests come from the layers and config of a manifest of this repository.`,
  );
}

export function digestInvalid(digest: string): HubResponse {
  return ociError(
    400,
    'DIGEST_INVALID',
    `${JSON.stringify(digest.slice(0, 100))} is not a digest; digests here are sha256: followed by 64 hex characters.`,
  );
}

export function paginationInvalid(value: string): HubResponse {
  return ociError(
    400,
    'PAGINATION_NUMBER_INVALID',
    `n=${JSON.stringify(value.slice(0, 50))} is not a count; send a whole number of 0 or more.`,
  );
}

export function unsupported(method: string, path: string): HubResponse {
  return ociError(
    405,
    'UNSUPPORTED',
    `${method} ${path.slice(0, 200)} is not supported: this registry is read-only and only the hub publishes. Pull with GET and HEAD.`,
    { allow: 'GET, HEAD' },
  );
}

export function unavailable(
  path: string,
  holders: readonly string[],
  retryAfter: number,
  lacking: readonly string[] = [],
  plainHttp: readonly string[] = [],
): HubResponse {
  const which = holders.length
    ? `the sources holding it (${holders.join(', ')}) are all failing their probes or cannot be offered`
    : 'no source reachable from this hub holds it';
  const notes = besideNotes(lacking, plainHttp);
  return ociError(
    503,
    'UNAVAILABLE',
    `The bytes of ${path} cannot be fetched now: ${which}. Retry after ${retryAfter} s; see /api/hub/health.${notes}`,
    {
      'retry-after': String(retryAfter),
    },
  );
}

export function rangeInvalid(size: number): HubResponse {
  return ociError(416, 'RANGE_INVALID', `The requested range is outside this blob of ${size} bytes; ask for bytes=START-END within it.`, {
    'content-range': `bytes */${size}`,
  });
}
