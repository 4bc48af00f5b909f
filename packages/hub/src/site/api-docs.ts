/** The machine description rendered for people (`/docs`) and as Markdown (`/docs/api.md`). */

interface Operation {
  summary?: string;
  tags?: string[];
  'x-cache'?: string;
  'x-error-shape'?: string;
  responses: Record<string, { description?: string; content?: Record<string, unknown> }>;
}

interface Row {
  tag: string;
  method: string;
  path: string;
  summary: string;
  answers: string;
  cache: string;
}

function rows(doc: Record<string, unknown>): Row[] {
  const out: Row[] = [];
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const answers = Object.entries(op.responses)
        .filter(([s]) => !/XX$/.test(s))
        .map(([s, r]) => `${s}${r.content ? ` ${Object.keys(r.content).join(' | ')}` : ''}`)
        .join('; ');
      const shape = op['x-error-shape'];
      out.push({
        tag: op.tags?.[0] ?? 'Other',
        method: method.toUpperCase(),
        path,
        summary: op.summary ?? '',
        answers: `${answers}${shape ? `; errors: ${shape === 'hub' ? 'HubError' : shape === 'objects' ? 'ApiError' : shape === 'oci' ? 'OciError' : 'text/plain'}` : ''}`,
        cache: op['x-cache'] ?? '',
      });
    }
  }
  return out;
}

function grouped(doc: Record<string, unknown>): Map<string, Row[]> {
  const by = new Map<string, Row[]>();
  for (const tag of (doc.tags as { name: string }[]).map((t) => t.name)) by.set(tag, []);
  for (const r of rows(doc)) {
    if (!by.has(r.tag)) by.set(r.tag, []);
    (by.get(r.tag) as Row[]).push(r);
  }
  return by;
}

export function apiMarkdown(doc: Record<string, unknown>): string {
  const info = doc.info as { title: string; version: string; description: string };
  const lines = [
    `# ${info.title}: machine description`,
    '',
    info.description,
    '',
    `OpenAPI 3.1, version ${info.version}: /openapi.json (also /.well-known/openapi.json).`,
    '',
  ];
  for (const [tag, list] of grouped(doc)) {
    if (list.length === 0) continue;
    lines.push(`## ${tag}`, '', '| Method | Path | What | Answers | Cache |', '| --- | --- | --- | --- | --- |');
    for (const r of list)
      lines.push(`| ${r.method} | \`${r.path}\` | ${r.summary.replace(/\|/g, '\\|')} | ${r.answers.replace(/\|/g, '\\|')} | ${r.cache} |`);
    lines.push('');
  }
  return lines.join('\n');
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

export function apiHtml(doc: Record<string, unknown>): string {
  const parts: string[] = [
    '<h2 id="api">Every route</h2>',
    '<p>Generated from the route table and the same zod schemas the handlers use: <a href="/openapi.json">/openapi.json</a> (<a href="/docs/api.md">Markdown</a>).</p>',
  ];
  for (const [tag, list] of grouped(doc)) {
    if (list.length === 0) continue;
    const id = `api-${tag.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
    parts.push(
      `<h3 id="${id}">${esc(tag)}</h3><table aria-labelledby="${id}"><thead><tr><th scope="col">Method</th><th scope="col">Path</th><th scope="col">What</th><th scope="col">Answers</th><th scope="col">Cache</th></tr></thead><tbody>${list
        .map(
          (r) =>
            `<tr><td>${r.method}</td><td><code>${esc(r.path)}</code></td><td>${esc(r.summary)}</td><td>${esc(r.answers)}</td><td>${esc(r.cache)}</td></tr>`,
        )
        .join('')}</tbody></table>`,
    );
  }
  return parts.join('\n');
}
