import { type FileRecord, MODELSCOPE_URL, type SourceObject } from '@hub/core-index';
import type { UpstreamClient } from './client.js';
import { UpstreamError } from './errors.js';

/**
 * The second public model host, as a source: which of a revision's files it holds, matched by
 * SHA-256 and never by name. Its repository ids differ from the first host's, so a name only
 * proposes a candidate; the file hashes decide.
 */
export interface ModelScopeAdapter {
  /** The health key of this source (`modelscope.cn`). */
  readonly source: string;
  /**
   * The source record for this revision, or undefined when no candidate repository holds any of
   * its files with the same path and SHA-256.
   */
  find(model: { id: string; files: FileRecord[] }): Promise<Omit<SourceObject, 'kind' | 'model' | 'revision'> | undefined>;
}

/**
 * One file of the ModelScope listing API, `GET {base}/api/v1/models/{owner}/{name}/repo/files?Revision=master&Recursive=true`,
 * which answers `{Code: 200, Success: true, Data: {Files: [...]}}` (the shape the `modelscope` Python SDK's
 * `HubApi.get_model_files` reads). Directories have `Type: "tree"`; `Sha256` is the file's SHA-256 in hex.
 */
export interface ModelScopeFile {
  Name: string;
  Path: string;
  Type: 'blob' | 'tree' | string;
  Size?: number;
  Sha256?: string;
  Revision?: string;
}

export interface ModelScopeListing {
  Code?: number;
  Success?: boolean;
  Message?: string;
  Data?: { Files?: ModelScopeFile[] };
}

export interface HttpModelScopeOptions {
  /** API base, default core-index's `MODELSCOPE_URL`. */
  base?: string;
  /** Health key, default `modelscope.cn`. */
  source?: string;
  /** The branch recorded in the source (its URL template takes it as `{revision}`), default `master`. */
  revision?: string;
  /**
   * Candidate repository ids on ModelScope for a model id. Default: the same id. Operators can add
   * known renames (`{ 'meta-llama/X': ['LLM-Research/X'] }`); a candidate only counts when hashes match.
   */
  candidates?: (id: string) => string[];
}

/** The ModelScope adapter over its file-listing API. */
export function httpModelScope(client: UpstreamClient, options: HttpModelScopeOptions = {}): ModelScopeAdapter {
  const base = (options.base ?? MODELSCOPE_URL).replace(/\/+$/, '');
  const source = options.source ?? 'modelscope.cn';
  const branch = options.revision ?? 'master';
  return {
    source,
    async find(model) {
      const candidates = options.candidates?.(model.id) ?? [model.id];
      const wanted = new Map(model.files.map((f) => [f.path, f.sha256] as const));
      for (const remote of candidates) {
        const [owner, name] = remote.split('/');
        if (!owner || !name) continue;
        const url = `${base}/api/v1/models/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/repo/files?Revision=${encodeURIComponent(branch)}&Recursive=true`;
        let listing: ModelScopeListing;
        try {
          listing = (await client.json<ModelScopeListing>(url)).value;
        } catch (e) {
          // Not there (404, 400, or the API's own error answer): try the next candidate. A 403 (refused, often a
          // network-level block) or a 429 that outlasted the deadline is a failure of the source, not an absence.
          if (
            e instanceof UpstreamError &&
            typeof e.status === 'number' &&
            e.status >= 400 &&
            e.status < 500 &&
            e.status !== 403 &&
            e.status !== 429
          )
            continue;
          throw e;
        }
        if (listing.Success === false || !Array.isArray(listing.Data?.Files)) continue;
        const held: string[] = [];
        for (const f of listing.Data.Files) {
          if (f.Type !== 'blob' || typeof f.Sha256 !== 'string') continue;
          const path = f.Path || f.Name;
          if (wanted.get(path) === f.Sha256.toLowerCase()) held.push(path);
        }
        if (held.length === 0) continue;
        held.sort();
        return {
          source,
          type: 'http' as const,
          ...(remote !== model.id ? { remote_id: remote } : {}),
          remote_revision: branch,
          // Every file matched: no `paths` (the source holds the whole revision).
          ...(held.length === model.files.length ? {} : { paths: held }),
        };
      }
      return undefined;
    },
  };
}
