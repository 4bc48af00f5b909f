import { besideNotes, type CoreDeps, errorResponse, type HubResponse, type IndexedModel, recordMissing } from '@hub/core-index';

/**
 * Every error of the model-host dialect, in one place. The shape is the hub's `{error}` with a machine
 * code in `X-Error-Code`: the host's clients branch on that header (a 404 without it reads as "hub
 * unreachable" to huggingface_hub, and huggingface.js returns null only for `EntryNotFound`).
 */

/** 404 `RepoNotFound`, and the id recorded in the missing log for the next index run. */
export function repoNotFound(deps: CoreDeps, id: string): HubResponse {
  recordMissing(deps, id);
  return errorResponse(
    'hub',
    404,
    'RepoNotFound',
    `Model ${shown(id)} is not in this hub's index; the request was recorded for the next index run, and /api/models lists the models served today.`,
  );
}

/** 404 `RevisionNotFound`, naming the one revision the hub serves. */
export function revisionNotFound(model: IndexedModel, rev: string): HubResponse {
  return errorResponse(
    'hub',
    404,
    'RevisionNotFound',
    `Revision ${shown(rev)} of ${model.id} is not served here; this hub serves only the indexed commit ${model.revision}: ask for main, HEAD or ${model.revision}.`,
  );
}

/** 404 `EntryNotFound` with `X-Repo-Commit`, naming path, model and revision. */
export function entryNotFound(model: IndexedModel, rev: string, path: string): HubResponse {
  return errorResponse(
    'hub',
    404,
    'EntryNotFound',
    `${shown(path)} is not a file of ${model.id} at revision ${shown(rev)} (commit ${model.revision}); list the files with /api/models/${model.id}/tree/${model.revision}?recursive=true.`,
    { 'x-repo-commit': model.revision },
  );
}

/** 404 `EntryNotFound` for a tree path that names no folder. */
export function folderNotFound(model: IndexedModel, rev: string, path: string, isFile: boolean): HubResponse {
  const why = isFile
    ? `${shown(path)} is a file, not a folder, of ${model.id} at revision ${shown(rev)}; ask POST /api/models/${model.id}/paths-info/${model.revision} for one file`
    : `${shown(path)} is not a folder of ${model.id} at revision ${shown(rev)} (commit ${model.revision}); list every file with /api/models/${model.id}/tree/${model.revision}?recursive=true`;
  return errorResponse('hub', 404, 'EntryNotFound', `${why}.`, { 'x-repo-commit': model.revision });
}

/** 400 `BadRequest` for a query or body the dialect cannot read; `message` names the fix. */
export function badRequest(message: string): HubResponse {
  return errorResponse('hub', 400, 'BadRequest', message);
}

/** 503 when no source holding the file is live: `Retry-After` and the sources by name. */
export function sourcesUnavailable(
  deps: CoreDeps,
  model: IndexedModel,
  path: string,
  holders: string[],
  lacking: string[] = [],
  plainHttp: string[] = [],
): HubResponse {
  const names = holders.length ? holders.join(', ') : 'none';
  const message = holders.length
    ? `No live source holds ${shown(path)} of ${model.id} right now (sources holding it: ${names}); retry after the next probe, or see /api/hub/health.${besideNotes(lacking, plainHttp)}`
    : `No source reachable from this hub holds ${shown(path)} of ${model.id} (sources: ${names}); see /api/hub/health, and retry after the next index run.${besideNotes(lacking, plainHttp)}`;
  return errorResponse('hub', 503, 'SourceUnavailable', message, {
    'retry-after': String(Math.max(1, Math.round(deps.health.retryAfterSeconds()))),
    'x-repo-commit': model.revision,
  });
}

/** Quote a client-supplied value for a message, bounded so a long input cannot bloat the answer. */
function shown(value: string): string {
  return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
}
