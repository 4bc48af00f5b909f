import type { HubResponse } from '@hub/core-index';
import { ociError } from '../errors.js';

/**
 * The errors of bucket pushes (design 9.2), in the OCI `{errors:[{code, message}]}` shape of the dialect.
 * Codes and statuses are those of the OCI distribution spec's push flow.
 */

export function blobUploadUnknown(repository: string, uuid: string): HubResponse {
  return ociError(
    404,
    'BLOB_UPLOAD_UNKNOWN',
    `${repository.slice(0, 200)} has no upload ${JSON.stringify(uuid.slice(0, 100))}; it finished, failed or never started. Start a new one with POST /v2/${repository.slice(0, 200)}/blobs/uploads/.`,
  );
}

/** A chunk that does not start where the upload stands: 416 with the Range already received. */
export function chunkOutOfOrder(received: number): HubResponse {
  return ociError(
    416,
    'BLOB_UPLOAD_INVALID',
    `This chunk does not start at byte ${received}, where the upload stands; resend from there (see the Range header).`,
    { range: received > 0 ? `0-${received - 1}` : '0-0' },
  );
}

export function blobUploadInvalid(why: string): HubResponse {
  return ociError(400, 'BLOB_UPLOAD_INVALID', `The upload is invalid: ${why}`);
}

/** The bytes received do not hash to the digest the client named; nothing was stored. */
export function digestMismatch(expected: string, actual: string): HubResponse {
  return ociError(
    400,
    'DIGEST_INVALID',
    `The uploaded bytes hash to ${actual}, not ${expected.slice(0, 100)}; nothing was stored. Upload the blob again.`,
  );
}

/** Past the bucket's configured size limit: 413, nothing stored. */
export function sizeInvalid(repository: string, limit: number): HubResponse {
  return ociError(
    413,
    'SIZE_INVALID',
    `${repository.slice(0, 200)} is limited to ${limit} bytes in all; this upload would pass that limit, and nothing of it was stored.`,
  );
}

export function manifestBlobUnknown(digest: string): HubResponse {
  return ociError(
    400,
    'MANIFEST_BLOB_UNKNOWN',
    `The manifest names blob ${digest.slice(0, 100)}, which this bucket does not hold; push that blob first.`,
  );
}

export function manifestInvalid(why: string): HubResponse {
  return ociError(400, 'MANIFEST_INVALID', `The manifest is invalid: ${why}`);
}

/** Another request is writing to this upload now (in this process or another): 416 with the Range recorded. */
export function uploadBusy(received: number): HubResponse {
  return ociError(
    416,
    'BLOB_UPLOAD_INVALID',
    `Another request is writing to this upload now; the upload stands at byte ${received}. Ask where it stands (GET) and resend from there.`,
    { range: received > 0 ? `0-${received - 1}` : '0-0' },
  );
}
