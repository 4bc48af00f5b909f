import {
  defaultGgufFile,
  encodePath,
  type HubHealth,
  type IndexedModel,
  type IndexStore,
  isSourceKind,
  mirrorHolds,
  ociName,
  ollamaRedirectRules,
  quantOf,
  type RequestObject,
  type SectionDescriptor,
  SOURCE_KIND_INFO,
  type SourceHealth,
  shellQuote,
  sourceHolds,
} from '@hub/core-index';
import { escapeHtml, formatBytes, formatCount, markdownToHtml, modelHref, page } from './html.js';

// ---- model page ------------------------------------------------------------------------------

function cmd(label: string, id: string, text: string): string {
  return `<h3 id="${id}">${label}</h3><pre class="cmd" aria-labelledby="${id}"><code>${escapeHtml(text)}</code></pre>`;
}

/** The default GGUF file of a model, by the one rule `ollama pull …:latest` uses (core-index defaultGgufFile). */
function defaultGguf(m: IndexedModel): { path: string; quant?: string } | undefined {
  const f = defaultGgufFile(m.files);
  if (!f) return undefined;
  const q = quantOf(f.path);
  return { path: f.path, ...(q ? { quant: q } : {}) };
}

export function commandsFor(m: IndexedModel, origin: string): string {
  const host = origin.replace(/^https?:\/\//, '');
  const id = m.id;
  const gguf = defaultGguf(m);
  const one = gguf?.path ?? [...m.files].sort((a, b) => a.size - b.size)[0]?.path ?? 'config.json';
  const oneFile = m.file(one);
  const url = (p: string) => `${origin}/${encodePath(id)}/resolve/${m.revision}/${encodePath(p)}`;
  const parts: string[] = [];
  parts.push(
    cmd(
      'hf CLI',
      'cmd-hf',
      `HF_ENDPOINT=${origin} hf download ${id}${gguf ? ` ${shellQuote(gguf.path)}` : ''} --local-dir ${shellQuote(m.name)}`,
    ),
  );
  parts.push(
    cmd(
      'huggingface_hub (Python)',
      'cmd-py',
      `from huggingface_hub import ${gguf ? 'hf_hub_download' : 'snapshot_download'}\n${
        gguf
          ? `path = hf_hub_download("${id}", "${gguf.path}", endpoint="${origin}")`
          : `path = snapshot_download("${id}", endpoint="${origin}")`
      }\nprint(path)`,
    ),
  );
  if (gguf) {
    const ollamaName = ociName(m.owner, m.name);
    parts.push(cmd('Ollama', 'cmd-ollama', `ollama pull --insecure ${host}/${ollamaName}:${gguf.quant ?? 'latest'}`));
    const tag = gguf.quant ?? 'latest';
    parts.push(cmd('Docker Model Runner', 'cmd-dmr', `docker model pull ${host}/${ollamaName}:${tag}`));
    parts.push(
      cmd(
        'modctl (ModelPack)',
        'cmd-modctl',
        `modctl pull ${origin.startsWith('http:') ? '--plain-http ' : ''}${host}/${ollamaName}:${tag}-modelpack`,
      ),
    );
    parts.push(cmd('llama.cpp', 'cmd-llama', `MODEL_ENDPOINT=${origin}/ llama-cli -hf ${id}${gguf.quant ? `:${gguf.quant}` : ''}`));
  }
  if (!gguf) {
    const repository = ociName(m.owner, m.name);
    parts.push(
      cmd(
        'modctl (ModelPack)',
        'cmd-modctl',
        `modctl pull ${origin.startsWith('http:') ? '--plain-http ' : ''}${host}/${repository}:latest-modelpack`,
      ),
    );
  }
  parts.push(
    `<p class="muted" id="oci-tags">Registry clients get the manifest they load on the same tag: Ollama its own, Docker Model Runner its own, skopeo and containerd an OCI image. Clients that cannot be told apart by what they send ask for a shape by tag: <code>{tag}-modelpack</code> (CNCF ModelPack: modctl, KitOps, Harbor, Kubernetes image volumes)${gguf ? ' and <code>{tag}-dmr</code> (Docker Model Runner)' : ''}.</p>`,
  );
  parts.push(
    cmd(
      'hub get (verifies every byte)',
      'cmd-hub',
      `HUB_URL=${origin} hub get ${id}${gguf?.quant ? `:${gguf.quant}` : ''} --to ${shellQuote(m.name)}`,
    ),
  );
  parts.push(
    cmd(
      'curl + sha256sum -c',
      'cmd-curl',
      `mkdir -p ${shellQuote(m.name)} && cd ${shellQuote(m.name)}\ncurl -fL -o SHA256SUMS ${url('SHA256SUMS')}\ncurl -fL --create-dirs -o ${shellQuote(one)} ${url(one)}\nsha256sum -c --ignore-missing SHA256SUMS${
        oneFile ? `\n# or, for this one file:\necho '${oneFile.sha256}  ${one}' | sha256sum -c` : ''
      }`,
    ),
  );
  parts.push(
    cmd(
      'MCP',
      'cmd-mcp',
      `# Streamable HTTP endpoint: ${origin}/mcp\n{"mcpServers": {"model-hub": {"type": "http", "url": "${origin}/mcp"}}}\n# then call the tool get_download with {"model": "${id}"${gguf?.quant ? `, "quant": "${gguf.quant}"` : ''}}`,
    ),
  );
  return parts.join('\n');
}

const HEALTH_SLOT = '<!--health-->';

/**
 * The model page, prepared once per index with a slot for the live source health, which
 * {@link fillModelHealth} fills on each request.
 */
export function modelPageTemplate(m: IndexedModel, origin: string): string {
  const facts: [string, string][] = [
    ['Revision', `<code>${m.revision}</code>`],
    ['Licence', escapeHtml(m.object.license ?? 'not stated')],
  ];
  if (m.row.pipeline_tag) facts.push(['Task', escapeHtml(m.row.pipeline_tag)]);
  if (m.row.library_name) facts.push(['Library', escapeHtml(m.row.library_name)]);
  if (m.row.svc.parameters !== undefined) facts.push(['Parameters', formatCount(m.row.svc.parameters)]);
  if (m.row.svc.context !== undefined) facts.push(['Context', String(m.row.svc.context)]);
  facts.push([
    'Files',
    `${m.files.length} (${formatBytes(m.files.reduce((n, f) => n + f.size, 0))}; weights ${m.weightBytes ? formatBytes(m.weightBytes) : 'none'})`,
  ]);
  if (m.row.downloads !== undefined) facts.push(['Downloads', formatCount(m.row.downloads)]);
  if (m.row.likes !== undefined) facts.push(['Likes', formatCount(m.row.likes)]);
  facts.push(['Model object', `<a class="hash" href="/api/v1/objects/${m.address}">${m.address}</a>`]);
  const sig = m.object.signature;
  if (sig)
    facts.push([
      'Signature',
      `${escapeHtml(sig.status)}${sig.identity ? ` by ${escapeHtml(sig.identity)}` : ''}${sig.issuer ? ` (${escapeHtml(sig.issuer)})` : ''} <a href="/docs/verification">what this means</a>`,
    ]);
  if (m.row.svc.listed === false) facts.push(['Listed', 'no: the browse list forgot this model; its files are still served']);
  const files = m.files
    .map(
      (f) =>
        `<tr><td><a href="/${encodePath(m.id)}/resolve/main/${encodePath(f.path)}">${escapeHtml(f.path)}</a></td><td class="n" data-label="Size">${formatBytes(f.size)}<span class="muted"> (${f.size})</span></td><td class="hash" data-label="SHA-256">${f.sha256}</td></tr>`,
    )
    .join('\n');
  const body = `<nav aria-label="Breadcrumb"><a href="/models/">Models</a> / ${escapeHtml(m.owner)}</nav>
<h1>${escapeHtml(m.id)}</h1>
<dl class="facts">${facts.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>
<h2 id="files-h">Files</h2>
<p class="muted">Each link redirects to a live source. Check what arrives against the SHA-256 here (or <a href="/${encodePath(m.id)}/resolve/main/SHA256SUMS">SHA256SUMS</a>): see <a href="/docs/verification">verification</a>.</p>
<table class="cards" aria-labelledby="files-h"><thead><tr><th scope="col">Path</th><th scope="col" class="n">Size</th><th scope="col">SHA-256</th></tr></thead>
<tbody>
${files}
</tbody></table>
<h2 id="sources-h">Sources</h2>
${HEALTH_SLOT}
<h2 id="get-h">Get it</h2>
<p class="muted">Click a command to select it, then copy.</p>
${commandsFor(m, origin)}`;
  return page(
    {
      title: `${m.id} · Model hub`,
      current: 'models',
      alternates: [{ href: `/api/models/${encodePath(m.id)}`, type: 'application/json' }],
    },
    body,
  );
}

function stateCell(health: HubHealth, source: string): string {
  const s = health.sources[source];
  if (!s) return '<td data-label="Status">not redirected to</td><td data-label="Last reached">–</td>';
  // A source with no probe file is offered on trust and never checked (spec: checked is null): say so, not "live".
  const status =
    !s.checked && s.ok
      ? '<span>offered, not checked</span> <span class="muted">(no probe file)</span>'
      : s.ok
        ? '<span class="ok">live</span>'
        : '<span class="bad">down</span>';
  return `<td data-label="Status">${status}${s.reason ? ` <span class="muted">(${escapeHtml(s.reason)})</span>` : ''}</td><td data-label="Last reached">${s.checked ? escapeHtml(s.checked) : s.ok ? 'not checked' : 'never reached'}</td>`;
}

/** The example URL of a source (its template with placeholders filled), to judge its scheme and host. */
function sourceExample(health: SourceHealth, name: string, type: string): URL | undefined {
  const template = health.source(name)?.url ?? (isSourceKind(type) ? SOURCE_KIND_INFO[type].defaultUrl : undefined);
  if (!template) return undefined;
  try {
    return new URL(template.replace(/\{[^}]*\}/g, 'x'));
  } catch {
    return undefined;
  }
}

/** Which clients the hub may send to a source, under the redirect rules of the clients that have them. */
function clientsCell(health: SourceHealth, name: string, type: string, origin: string | undefined): string {
  const url = sourceExample(health, name, type);
  if (!url || !origin) return '<td data-label="Clients">all clients</td>';
  const ollama = ollamaRedirectRules(origin);
  if (ollama.must && !ollama.must(url)) return '<td data-label="Clients">all clients except Ollama (http source behind an https hub)</td>';
  if (ollama.prefer && !ollama.prefer(url))
    return '<td data-label="Clients">all clients; Ollama only when no other live source holds the file (local address)</td>';
  return '<td data-label="Clients">all clients</td>';
}

export function modelSourcesHtml(m: IndexedModel, health: SourceHealth, origin?: string): string {
  const snap = health.snapshot();
  if (m.sources.length === 0 && (health.mirrorSources?.() ?? []).length === 0) return '<p>No source holds these files today.</p>';
  const rows = m.sources
    .filter((s) => health.source(s.source)?.kind !== 'mirror')
    .map((s) => {
      const held = s.paths ? `${m.files.filter((f) => sourceHolds(s, f.path)).length} of ${m.files.length} files` : 'every file';
      return `<tr><th scope="row">${escapeHtml(health.display(s.source))}</th><td data-label="Health key"><code>${escapeHtml(s.source)}</code></td><td data-label="Holds">${held}</td>${stateCell(snap, s.source)}${clientsCell(health, s.source, s.type, origin)}</tr>`;
    })
    .join('\n');
  // local mirrors hold files by SHA-256, whatever the index names (design 10.3): say which of this model's they hold
  const mirrorRows = (health.mirrorSources?.() ?? [])
    .map(({ config, holding }) => {
      const held = m.files.filter((f) => mirrorHolds(holding, f.sha256));
      const list = held.length
        ? `${held.length} of ${m.files.length} files: ${held.map((f) => `<code>${escapeHtml(f.path)}</code>`).join(', ')}`
        : `none of the ${m.files.length} files`;
      return `<tr><th scope="row">${escapeHtml(config.display)} <span class="muted">(local mirror)</span></th><td data-label="Health key"><code>${escapeHtml(config.name)}</code></td><td data-label="Holds">${list}</td>${stateCell(snap, config.name)}${clientsCell(health, config.name, 'http', origin)}</tr>`;
    })
    .join('\n');
  return `<table class="cards" aria-labelledby="sources-h"><thead><tr><th scope="col">Source</th><th scope="col">Health key</th><th scope="col">Holds</th><th scope="col">Status</th><th scope="col">Last reached</th><th scope="col">Clients</th></tr></thead><tbody>
${rows}${mirrorRows ? `\n${mirrorRows}` : ''}
</tbody></table>
<p class="muted">Preference order: ${snap.order.map((o) => `<code>${escapeHtml(o)}</code>`).join(' → ') || 'none'}. See <a href="/health">health</a> and <a href="/docs/sources">source failover</a>.</p>`;
}

export function fillModelHealth(template: string, m: IndexedModel, health: SourceHealth, origin?: string): string {
  const i = template.indexOf(HEALTH_SLOT);
  return template.slice(0, i) + modelSourcesHtml(m, health, origin) + template.slice(i + HEALTH_SLOT.length);
}

// ---- health page -----------------------------------------------------------------------------

/** The local mirrors and what they hold (files, bytes, last re-hashed), from their manifests' last read. */
function mirrorsHtml(snap: HubHealth): string {
  const rows = Object.entries(snap.sources)
    .filter(([, s]) => s.mirror)
    .map(([name, s]) => {
      const m = s.mirror as NonNullable<typeof s.mirror>;
      return `<li><code>${escapeHtml(name)}</code>: ${m.files} files, ${escapeHtml(formatBytes(m.bytes))}; last verified ${m.verified ? escapeHtml(m.verified) : 'never (run <code>hub mirror verify</code>)'}</li>`;
    });
  return rows.length ? `<h2>Local mirrors</h2>\n<ul>\n${rows.join('\n')}\n</ul>\n` : '';
}

export function healthPage(index: IndexStore, health: SourceHealth): string {
  const snap = health.snapshot();
  const held = index.totals.holders;
  const holders = { get: (name: string): number | undefined => held[name] };
  const names = [...new Set([...snap.order, ...Object.keys(snap.sources)])];
  const rows = names
    .map(
      (name) =>
        `<tr><th scope="row">${escapeHtml(health.display(name))}</th><td data-label="Health key"><code>${escapeHtml(name)}</code></td><td class="n" data-label="Order">${snap.order.indexOf(name) + 1 || '–'}</td><td class="n" data-label="Models held">${holders.get(name) ?? 0}${holders.get(name) ? '' : ' <span class="muted">(none of this index)</span>'}</td>${stateCell(snap, name)}</tr>`,
    )
    .join('\n');
  const body = `<h1>Source health</h1>
<p>A download goes to the first source in the preference order that is live and holds the file. This page shows the last probe of each source; the same data is <a href="/api/hub/health">JSON at /api/hub/health</a>.</p>
<table class="cards"><caption class="muted">Sources, in preference order</caption><thead><tr><th scope="col">Source</th><th scope="col">Health key</th><th scope="col" class="n">Order</th><th scope="col" class="n">Models held</th><th scope="col">Status</th><th scope="col">Last reached</th></tr></thead><tbody>
${rows || '<tr><td colspan="6">No sources are configured.</td></tr>'}
</tbody></table>
${mirrorsHtml(snap)}<p class="muted"><code>verified</code> means the hub fetched a probe file from that source and its bytes hashed correctly from the hub's network. A source without a probe file is <em>offered, not checked</em>: the hub sends downloads there on trust (they are still hashed by the client) and cannot say whether it is reachable from here. See <a href="/docs/sources">source failover</a>.</p>`;
  return page({ title: 'Health · Model hub', current: 'health' }, body);
}

// ---- section pages, docs, not found ----------------------------------------------------------

function requestHtml(r: RequestObject, catalog: string | null | undefined): string {
  const url = catalog ? r.url.replace('{catalog.address}', catalog) : r.url;
  return `<li><a href="${escapeHtml(url)}"><code>GET ${escapeHtml(r.url)}</code></a> → ${escapeHtml(r.returns)}${r.caps_at ? ` (at most ${r.caps_at} per call)` : ''}${r.note ? `. <span class="muted">${escapeHtml(r.note)}</span>` : ''}</li>`;
}

export function sectionPage(d: SectionDescriptor, extra = ''): string {
  const cat = d.catalog?.address;
  const inv = d.inventory;
  const body = `<h1>${escapeHtml(d.title ?? d.section)}</h1>
<p>${escapeHtml(d.about)}</p>
<dl class="facts"><dt>Described</dt><dd>${inv.described ?? 'unknown'}</dd><dt>Served here</dt><dd>${inv.served_here ?? 'unknown'}</dd><dt>Note</dt><dd>${escapeHtml(inv.note)}</dd>
<dt>Catalog</dt><dd>${d.catalog ? `<a class="hash" href="${escapeHtml(d.catalog.fetch.replace('{catalog.address}', cat ?? ''))}">${escapeHtml(cat ?? '')}</a> (${escapeHtml(d.catalog.format)})` : `none: ${escapeHtml(d.catalog_note ?? '')}`}</dd>
<dt>Verify</dt><dd>${escapeHtml(d.verify.algorithm)}, expected from ${escapeHtml(d.verify.expected_from)}; the server never verifies on read.</dd></dl>
${extra}
<h2>List</h2><ul>${d.list.map((r) => requestHtml(r, cat)).join('') || '<li>Nothing to list here yet.</li>'}</ul>
<h2>One item</h2><ul>${requestHtml(d.item, cat)}</ul>
${d.files ? `<h2>Its files</h2><ul>${requestHtml(d.files, cat)}</ul>` : ''}
<h2>Fetch</h2><ul>${requestHtml(d.fetch, cat)}</ul>
${d.one_line ? `<h2>One line</h2><pre class="cmd"><code>${escapeHtml(d.one_line)}</code></pre>` : ''}
${d.pages ? `<h2>Pages</h2><ul>${d.pages.map((p) => `<li><a href="${escapeHtml(p.html)}">${escapeHtml(p.title)}</a> (<a href="${escapeHtml(p.markdown)}">Markdown</a>)</li>`).join('')}</ul>` : ''}
<p class="muted">This section as <a href="/${d.section}?format=json">JSON (SectionDescriptor)</a> or <a href="${escapeHtml(d.brief)}">Markdown</a>; every route in the <a href="/openapi.json">machine description</a>.</p>`;
  return page(
    {
      title: `${d.title ?? d.section} · Model hub`,
      current: d.section,
      alternates: [{ href: `/${d.section}?format=json`, type: 'application/json' }],
    },
    body,
  );
}

export function docHtmlPage(title: string, markdown: string, markdownHref: string): string {
  return page(
    { title: `${title} · Model hub`, current: 'docs', alternates: [{ href: markdownHref, type: 'text/markdown' }] },
    `<nav aria-label="Breadcrumb"><a href="/docs">Docs</a></nav>\n<article>${markdownToHtml(markdown)}</article>\n<p class="muted"><a href="${escapeHtml(markdownHref)}">This page as Markdown</a></p>`,
  );
}

export function notFoundPage(message: string): string {
  return page(
    { title: 'Not found · Model hub' },
    `<h1>Not found</h1><p>${escapeHtml(message)}</p><p><a href="/models/">Browse every model</a> or read the <a href="/docs">docs</a>.</p>`,
  );
}

export { modelHref };
