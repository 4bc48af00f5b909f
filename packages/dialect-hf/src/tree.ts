import {
  type CoreDeps,
  type HubResponse,
  json,
  type Later,
  parseBool,
  prepare,
  type Refs,
  type RouteContext,
  readBody,
  sendPrepared,
  type TreeEntry,
  whenReady,
} from '@hub/core-index';
import { badRequest, folderNotFound } from './errors.js';
import { findModel, findRevision, treeEntry } from './model.js';

/** `…/tree/{rev}[/{path}]`, `…/refs`, `POST …/paths-info/{rev}`. */

/** Ref namespaces whose names arrive unencoded from huggingface.js (`tree/refs/pr/1/…`). */
const REF_KINDS = new Set(['heads', 'tags', 'pr', 'convert']);

/** Split `rev` + `path` when the revision was sent unencoded (`refs/heads/main` arrives as three segments). */
export function splitRefPath(rev: string, path: string): { rev: string; path: string } {
  if (rev !== 'refs') return { rev, path };
  const parts = path.split('/');
  if (parts.length >= 2 && REF_KINDS.has(parts[0] as string))
    return { rev: `refs/${parts[0]}/${parts[1]}`, path: parts.slice(2).join('/') };
  return { rev, path };
}

export function tree(ctx: RouteContext<CoreDeps>): Later<HubResponse> {
  const { owner = '', name = '' } = ctx.params;
  const { rev, path: rawPath } = splitRefPath(ctx.params.rev ?? '', ctx.params.path ?? '');
  return whenReady(findRevision(ctx.deps, owner, name, rev), (found) => {
    if (!found.ok) return found.response;
    const model = found.value;
    const folder = rawPath.replace(/^\/+|\/+$/g, '');
    const recursive = parseBool(ctx.query.get('recursive'));
    const expand = parseBool(ctx.query.get('expand'));
    const index = ctx.deps.index();
    const prefix = folder === '' ? '' : `${folder}/`;
    if (folder !== '' && !model.files.some((f) => f.path.startsWith(prefix))) {
      return folderNotFound(model, rev, folder, model.file(folder) !== undefined);
    }
    // Bounded memo: only folders that exist reach here, times two flags.
    const body = index.memo(`hf:tree:${model.id}:${recursive}:${expand}:${folder}`, () => {
      const entries: TreeEntry[] = [];
      for (const f of model.files) {
        if (!f.path.startsWith(prefix)) continue;
        // Not recursive: only files directly in the folder. The index holds no directory entries, so
        // subfolders are not listed (see docs/decisions/dialects.md, "Model-host dialect").
        if (!recursive && f.path.slice(prefix.length).includes('/')) continue;
        entries.push(treeEntry(model, f, expand, index.snapshot));
      }
      return prepare(entries);
    });
    return sendPrepared(body);
  });
}

export function refs(ctx: RouteContext<CoreDeps>): Later<HubResponse> {
  const { owner = '', name = '' } = ctx.params;
  return whenReady(findModel(ctx.deps, owner, name), (found) => {
    if (!found.ok) return found.response;
    const model = found.value;
    const prs = parseBool(ctx.query.get('include_prs'));
    return sendPrepared(
      ctx.deps.index().memo(`hf:refs:${prs}:${model.id}`, () => {
        const body: Refs = {
          branches: [{ name: 'main', ref: 'refs/heads/main', targetCommit: model.revision }],
          converts: [],
          tags: [],
        };
        if (prs) body.pullRequests = [];
        return prepare(body);
      }),
    );
  });
}

/** The most a paths-info body may hold (a long list of paths fits easily). */
export const PATHS_INFO_LIMIT = 1024 * 1024;

const decoder = new TextDecoder();

/** Read `{paths, expand}` from a JSON body (huggingface.js) or a form body (huggingface_hub). */
export function parsePathsInfo(contentType: string | null, bytes: Uint8Array): { paths: string[]; expand: boolean } | string {
  const text = decoder.decode(bytes);
  const ct = (contentType ?? '').toLowerCase();
  const looksJson = ct.includes('json') || (!ct.includes('form') && /^\s*\{/.test(text));
  if (looksJson) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return 'The body is not valid JSON; send {"paths": ["config.json"], "expand": false} or a form body paths=a&paths=b.';
    }
    if (!value || typeof value !== 'object' || Array.isArray(value))
      return 'The JSON body must be an object {"paths": [...], "expand": false}.';
    const v = value as { paths?: unknown; expand?: unknown };
    const paths = typeof v.paths === 'string' ? [v.paths] : v.paths;
    if (!Array.isArray(paths) || !paths.every((p) => typeof p === 'string'))
      return 'paths must be an array of file paths, for example {"paths": ["config.json"]}.';
    const expand =
      typeof v.expand === 'boolean'
        ? v.expand
        : parseBool(typeof v.expand === 'string' || typeof v.expand === 'number' ? String(v.expand) : null);
    return { paths: paths as string[], expand };
  }
  const form = new URLSearchParams(text);
  const paths = form.getAll('paths').concat(form.getAll('paths[]'));
  if (!form.has('paths') && !form.has('paths[]'))
    return 'The body names no paths; send paths=a&paths=b (form) or {"paths": ["a", "b"]} (JSON).';
  return { paths, expand: parseBool(form.get('expand')) };
}

export async function pathsInfo(ctx: RouteContext<CoreDeps>): Promise<HubResponse> {
  const { owner = '', name = '', rev = '' } = ctx.params;
  const found = await findRevision(ctx.deps, owner, name, rev);
  if (!found.ok) return found.response;
  const model = found.value;
  const limit = Math.min(PATHS_INFO_LIMIT, ctx.deps.settings.maxRequestBytes);
  const parsed = parsePathsInfo(ctx.req.headers.get('content-type'), await readBody(ctx.req, limit));
  if (typeof parsed === 'string') return badRequest(parsed);
  const snapshot = ctx.deps.index().snapshot;
  const seen = new Set<string>();
  const out: TreeEntry[] = [];
  for (const p of parsed.paths) {
    const path = p.replace(/^\/+/, '');
    if (seen.has(path)) continue;
    seen.add(path);
    const file = model.file(path);
    // Paths that name no file (missing, or a folder: the index has no directory entries) are left out, as upstream does for missing ones.
    if (file) out.push(treeEntry(model, file, parsed.expand, snapshot));
  }
  return json(200, out);
}
