import {
  type CoreDeps,
  type FileRecord,
  type HubResponse,
  type IndexedModel,
  type Later,
  policyRefusal,
  prepare,
  type Refusal,
  type RouteContext,
  reprDigestFromHex,
  type SourceHealth,
  sendPrepared,
  whenReady,
} from '@hub/core-index';
import { entryNotFound, sourcesUnavailable } from './errors.js';
import { findRevision } from './model.js';

/** `/{owner}/{name}/resolve|raw/{rev}/{path}` (and the `/via/{token}/` prefix), and the SHA256SUMS list. */

export const SHA256SUMS = 'SHA256SUMS';

/**
 * One line per file in the exact format `sha256sum -c` reads: `<hex>  <path>\n`, files in path order.
 * A name holding a backslash, newline or carriage return is escaped the way GNU coreutils writes it
 * (a leading `\` on the line, then `\\`, `\n`, `\r`). A file the serving policy refuses is left out, and named
 * in a closing `#` comment line (which `sha256sum -c` skips), so a check never expects bytes the hub will not serve.
 */
export function sha256sums(model: IndexedModel, refused: (path: string) => Refusal | undefined = () => undefined): string {
  let out = '';
  const left: string[] = [];
  for (const f of model.files) {
    const r = refused(f.path);
    if (r) {
      left.push(`# ${r.rule} refuses ${JSON.stringify(f.path)}: not listed\n`);
      continue;
    }
    if (/[\\\n\r]/.test(f.path)) {
      const escaped = f.path.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
      out += `\\${f.sha256}  ${escaped}\n`;
    } else {
      out += `${f.sha256}  ${f.path}\n`;
    }
  }
  return out + left.join('');
}

function absolute(url: string, origin: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `${origin}${url.startsWith('/') ? '' : '/'}${url}`;
}

export function resolve(ctx: RouteContext<CoreDeps>): Later<HubResponse> {
  const { owner = '', name = '', rev = '', path = '', token } = ctx.params;
  return whenReady(findRevision(ctx.deps, owner, name, rev), (found) => {
    if (!found.ok) return found.response;
    const model = found.value;
    // The hub's checksum list (spec: `SHA256SUMS` under `/resolve/main/`, also at the commit). It wins over a
    // repository file of that name, which would otherwise make the list unreachable.
    if (path === SHA256SUMS) {
      const refused = (p: string) => policyRefusal(ctx.deps.settings.policy, model, { path: p });
      return sendPrepared(
        ctx.deps.index().memo(`hf:sha256sums:${model.id}`, () => prepare(sha256sums(model, refused), 'text/plain; charset=utf-8')),
      );
    }
    const file = model.file(path);
    if (!file) return entryNotFound(model, rev, path);
    const chosen = ctx.deps.health.choose({
      id: model.id,
      revision: model.revision,
      path: file.path,
      sha256: file.sha256,
      sources: model.sources,
      ...(token ? { via: token } : {}),
      hubOrigin: ctx.origin,
    });
    if (!chosen.ok) return sourcesUnavailable(ctx.deps, model, file.path, chosen.holders, chosen.lacking, chosen.plainHttp);
    const etag = `"${file.sha256}"`;
    return {
      status: 302,
      headers: {
        location: absolute(chosen.choice.url, ctx.origin),
        'x-hub-source': chosen.choice.source,
        link: duplicates(chosen.live, ctx.origin),
        'x-repo-commit': model.revision,
        'x-linked-etag': etag,
        etag,
        'x-linked-size': String(file.size),
        'repr-digest': reprDigest(file),
        'content-type': 'text/plain; charset=utf-8',
      },
      body: EMPTY,
    };
  });
}

/**
 * Every live source holding the file, in the hub's preference order (the redirect's own target first), as RFC 6249
 * (Metalink/HTTP) duplicates: `<url>; rel="duplicate"; pri=N; hub-source="health key"`. A client may fetch ranges
 * of the file from all of them at once; the bytes are checked against the SHA-256 of `Repr-Digest` and the ETag.
 * A URL that does not parse is left out (it could not be fetched either).
 */
function duplicates(live: Extract<ReturnType<SourceHealth['choose']>, { ok: true }>['live'], origin: string): string {
  const out: string[] = [];
  for (const c of live) {
    let href: string;
    try {
      href = new URL(absolute(c.url, origin)).href;
    } catch {
      continue;
    }
    out.push(`<${href}>; rel="duplicate"; pri=${out.length + 1}; hub-source="${c.source.replace(/["\\]/g, '')}"`);
  }
  return out.join(', ');
}

const EMPTY = new Uint8Array(0);
const reprDigests = new WeakMap<FileRecord, string>();

/** `Repr-Digest` of a file, computed once per file record of the loaded index. */
function reprDigest(file: FileRecord): string {
  let v = reprDigests.get(file);
  if (v === undefined) {
    v = reprDigestFromHex(file.sha256);
    reprDigests.set(file, v);
  }
  return v;
}
