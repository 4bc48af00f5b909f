import { sha256Hex } from '@hub/core-index';
import { enc, syntheticSha } from './fake-models.js';
import type { FakeModel, FakeUpstreamOptions } from './fake-types.js';

/** The fake host's answers that read its models and nothing else: listing pages, tree pages, ModelScope, 404s. */

/** The rate-limit bucket of a path on the model host (hub-docs rate-limits.md). */
export function fakeBucketOf(path: string): string {
  if (path.includes('/resolve/')) return 'resolvers';
  if (path.startsWith('/api/')) return 'api';
  return 'pages';
}

export function notFoundAnswer(code: string): Response {
  return Response.json({ error: `${code} (fake upstream)` }, { status: 404, headers: { 'x-error-code': code } });
}

/** A page of `/api/models` in listing order (`cursor` is an offset), with the next page in `Link`. */
export function listPage(url: URL, order: string[], models: Map<string, FakeModel>, options: FakeUpstreamOptions): Response {
  const limit = Math.min(Number(url.searchParams.get('limit') ?? '50') || 50, options.maxListLimit ?? 1000);
  const offset = Number(url.searchParams.get('cursor') ?? '0') || 0;
  const ids = order.slice(offset, offset + limit);
  const expand = url.searchParams.getAll('expand[]').concat(url.searchParams.getAll('expand'));
  const rh = options.realHost;
  const rows = ids.map((id) => {
    const m = models.get(id) as FakeModel;
    const full: Record<string, unknown> = { ...m.row, siblings: m.files.map((f) => ({ rfilename: f.path })) };
    if (rh?.ggufInfo && m.files.some((f) => /\.gguf$/i.test(f.path))) full.gguf = rh.ggufInfo;
    if (!rh || (url.searchParams.get('full') === 'true' && expand.length === 0)) return full;
    // The real listing: projection mode with expand[], else only its default fields.
    const fields = expand.length
      ? ['_id', 'id', ...expand]
      : (rh.defaultFields ?? ['_id', 'id', 'private', 'downloads', 'likes', 'lastModified']);
    return Object.fromEntries(fields.filter((f) => full[f] !== undefined).map((f) => [f, full[f]]));
  });
  const headers: Record<string, string> = {};
  if (offset + limit < order.length) {
    const next = new URL(url);
    next.searchParams.set('cursor', String(offset + limit));
    headers.link = `<${next.toString()}>; rel="next"`;
  }
  return Response.json(rows, { headers });
}

/** A page of a model's recursive tree (directories first on their path, `cursor` an offset). */
export function treePage(url: URL, model: FakeModel, options: FakeUpstreamOptions): Response {
  const entries: Array<Record<string, unknown>> = [];
  const dirs = new Set<string>();
  for (const f of [...model.files].sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const parts = f.path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const d = parts.slice(0, i).join('/');
      if (!dirs.has(d)) {
        dirs.add(d);
        entries.push({ type: 'directory', oid: syntheticSha(d, 0), size: 0, path: d });
      }
    }
    entries.push({
      type: 'file',
      oid: syntheticSha(`${model.id}/${f.path}`, model.generation), // SYNTHETIC git oid
      size: f.size,
      path: f.path,
      ...(f.lfs ? { lfs: { oid: f.lfs, size: f.size, pointerSize: 125 + String(f.size).length } } : {}),
      // Xet-backed files: xetHash beside lfs (the hash SYNTHETIC).
      ...(f.lfs && options.realHost ? { xetHash: sha256Hex(enc.encode(`SYNTHETIC xet ${f.lfs}`)) } : {}),
    });
  }
  const size = options.treePageSize ?? 1000;
  const offset = Number(url.searchParams.get('cursor') ?? '0') || 0;
  const headers: Record<string, string> = {};
  if (offset + size < entries.length) {
    const next = new URL(url);
    next.searchParams.set('cursor', String(offset + size));
    headers.link = `<${next.toString()}>; rel="next"`;
  }
  return Response.json(entries.slice(offset, offset + size), { headers });
}

/** The fake ModelScope's file listing of a repository (`options.modelscope` says which model it copies, and how). */
export function modelscopeAnswer(url: URL, models: Map<string, FakeModel>, options: FakeUpstreamOptions): Response {
  const m = /^\/api\/v1\/models\/([^/]+)\/([^/]+)\/repo\/files$/.exec(url.pathname);
  const msId = m ? `${decodeURIComponent(m[1] as string)}/${decodeURIComponent(m[2] as string)}` : '';
  const repo = options.modelscope?.[msId];
  const model = repo ? models.get(repo.from) : undefined;
  if (!repo || !model) return Response.json({ Code: 10010205001, Message: 'model not exist', Success: false }, { status: 404 });
  const files = model.files
    .filter((f) => repo.mode !== 'weights' || f.lfs)
    .map((f) => {
      const sha = f.lfs ?? sha256Hex(f.bytes ?? new Uint8Array());
      const name = f.path.split('/').pop() as string;
      return {
        Name: name,
        Path: f.path,
        Type: 'blob',
        Size: f.size,
        Sha256: repo.mode === 'other-bytes' ? sha256Hex(enc.encode(`SYNTHETIC other ${sha}`)) : sha,
        Revision: syntheticSha(`ms ${msId}`, 0),
      };
    });
  return Response.json({ Code: 200, Success: true, Message: 'success', Data: { Files: files } });
}

/**
 * `POST …/paths-info/{rev}`: the listed files, and with `expand` their `lastCommit` and `securityFileStatus` (the
 * host's shape, as huggingface_hub's RepoFile reads it: `status`, `avScan`, `pickleImportScan`). A file without an
 * issue answers `safe`; the model's `security.files` gives the flagged files' detail.
 */
export function pathsInfoAnswer(model: FakeModel, body: { paths?: string[]; expand?: boolean }): Response {
  const wanted = new Set(body.paths ?? []);
  const entries = model.files
    .filter((f) => wanted.has(f.path))
    .map((f) => {
      const issue = model.security?.filesWithIssues.find((i) => i.path === f.path);
      const status = model.security?.files?.[f.path] ?? {
        status: issue?.level ?? 'safe',
        avScan: { status: 'safe' },
        pickleImportScan: null,
      };
      return {
        type: 'file',
        oid: syntheticSha(`${model.id}/${f.path}`, model.generation), // SYNTHETIC git oid
        size: f.size,
        path: f.path,
        ...(f.lfs ? { lfs: { oid: f.lfs, size: f.size, pointerSize: 125 + String(f.size).length } } : {}),
        ...(body.expand
          ? { lastCommit: { id: model.sha, title: 'SYNTHETIC commit', date: '2026-05-04T08:00:00.000Z' }, securityFileStatus: status }
          : {}),
      };
    });
  return Response.json(entries);
}
