import { type IndexedModel, type IndexStore, ociName } from '@hub/core-index';
import { examples } from '../discovery/sections.js';
import { escapeHtml, formatBytes, formatCount, modelHref, page } from './html.js';

export const BROWSE_SORTS = ['trending', 'downloads', 'likes'] as const;
export type BrowseSort = (typeof BROWSE_SORTS)[number];

export interface BrowseFilter {
  /** Words every shown model has in its id, task or library (`?search=`, as the API; `?q=` too). */
  q?: string;
  task?: string;
  library?: string;
}

/** Filtering in the browser: hide rows that do not match; no reload. The only script on the site. */
const FILTER_SCRIPT = `(function(){var f=document.getElementById('filters');if(!f)return;var rows=[].slice.call(document.querySelectorAll('#models tbody tr')),text=rows.map(function(r){return [0,1,2].map(function(i){return r.cells[i].textContent}).join(' ').toLowerCase()});var out=document.getElementById('count'),none=document.getElementById('none'),tbl=document.getElementById('models');
function run(){var q=f.search.value.toLowerCase().split(/\\s+/).filter(Boolean),t=f.task.value,l=f.library.value,n=0;rows.forEach(function(r,i){var s=text[i],ok=(!t||r.getAttribute('data-t')===t)&&(!l||r.getAttribute('data-l')===l)&&q.every(function(w){return s.indexOf(w)!==-1});r.hidden=!ok;if(ok)n++});out.textContent=n+' of '+rows.length+' models shown';none.hidden=n>0;tbl.hidden=n===0}
f.addEventListener('input',run);f.addEventListener('change',run);f.addEventListener('submit',function(e){e.preventDefault();run()});if(f.search.value||f.task.value||f.library.value)run()})();`;

/** The most models the browse table shows (a large index is browsed a page at a time through the API). */
export const BROWSE_MAX = 1000;

/** The listed models the browse table shows, in the order of `sort`: the first {@link BROWSE_MAX}. */
export async function browseModels(index: IndexStore, sort: BrowseSort): Promise<BrowseView> {
  const key = sort === 'trending' ? 'trendingScore' : sort === 'downloads' ? 'downloads' : 'likes';
  return { models: (await index.search({ sort: key, listed: true }, 0, BROWSE_MAX)).models, snapshot: index.snapshot };
}

function options(values: string[], selected: string | undefined, any: string): string {
  return `<option value="">${any}</option>${values
    .map((v) => `<option value="${escapeHtml(v)}"${v === selected ? ' selected' : ''}>${escapeHtml(v)}</option>`)
    .join('')}`;
}

function row(m: IndexedModel): string {
  const task = m.row.pipeline_tag ?? '';
  const lib = m.row.library_name ?? '';
  return `<tr data-t="${escapeHtml(task)}" data-l="${escapeHtml(lib)}"><td><a href="${modelHref(m.id)}">${escapeHtml(m.id)}</a></td><td data-label="Task">${escapeHtml(task) || '–'}</td><td data-label="Library">${escapeHtml(lib) || '–'}</td><td class="n" data-label="Weights">${m.weightBytes ? formatBytes(m.weightBytes) : 'none'}</td><td class="n" data-label="Downloads">${formatCount(m.row.downloads)}</td><td class="n" data-label="Likes">${formatCount(m.row.likes)}</td></tr>`;
}

function matches(m: IndexedModel, f: BrowseFilter): boolean {
  if (f.task && m.row.pipeline_tag !== f.task) return false;
  if (f.library && m.row.library_name !== f.library) return false;
  const words = (f.q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const s = `${m.id} ${m.row.pipeline_tag ?? ''} ${m.row.library_name ?? ''}`.toLowerCase();
  return words.every((w) => s.includes(w));
}

/** A filter in words: `"llama" · task text-generation`. */
function describeFilter(f: BrowseFilter): string {
  return [f.q ? `"${f.q}"` : '', f.task ? `task ${f.task}` : '', f.library ? `library ${f.library}` : ''].filter(Boolean).join(' · ');
}

/**
 * The browse table of every listed model, with filters and sort links. `filter` given (a form
 * submitted without JavaScript) narrows the rows on the server; otherwise the script filters.
 */
/** What the browse table shows: the models (listed, in order) and the index's day. */
export interface BrowseView {
  models: readonly IndexedModel[];
  snapshot: string;
}

export function browseSection(view: BrowseView, sort: BrowseSort, filter: BrowseFilter = {}, headingLevel = 1): string {
  const all = view.models;
  const rows = all.filter((m) => matches(m, filter));
  const filtered = Boolean(filter.q || filter.task || filter.library);
  const tasks = [...new Set(all.map((m) => m.row.pipeline_tag).filter((t): t is string => !!t))].sort();
  const libs = [...new Set(all.map((m) => m.row.library_name).filter((t): t is string => !!t))].sort();
  const h = `h${headingLevel}`;
  const sortLinks = BROWSE_SORTS.map(
    (s) =>
      `<li><a href="/models/?sort=${s}"${s === sort ? ' aria-current="true"' : ''}>${s === 'trending' ? 'Trending' : s === 'downloads' ? 'Downloads' : 'Likes'}</a></li>`,
  ).join('');
  return `<section aria-labelledby="browse-h">
<${h} id="browse-h">Models</${h}>
<form id="filters" class="filters" method="get" action="/models/" role="search" aria-label="Filter models">
<label for="f-q">Search<input id="f-q" name="search" type="search" value="${escapeHtml(filter.q ?? '')}" placeholder="owner, name, task…" autocomplete="off"></label>
<label for="f-task">Task<select id="f-task" name="task">${options(tasks, filter.task, 'Any task')}</select></label>
<label for="f-lib">Library<select id="f-lib" name="library">${options(libs, filter.library, 'Any library')}</select></label>
<input type="hidden" name="sort" value="${sort}">
<button type="submit">Filter</button>
</form>
<nav class="sort" aria-label="Sort models"><ul style="list-style:none;display:flex;gap:1em;padding:0"><li>Sort by:</li>${sortLinks}</ul></nav>
<p id="count" role="status" aria-live="polite">${rows.length} of ${all.length} models shown</p>
<p id="none"${rows.length === 0 ? '' : ' hidden'}><strong>No model matches${filtered ? ` ${escapeHtml(describeFilter(filter))}` : ''}.</strong> <a href="/models/">Show every model</a>, or search fewer words.</p>
<table id="models" class="cards"${rows.length === 0 ? ' hidden' : ''}><caption class="muted">${filtered ? `The listed models of the ${escapeHtml(view.snapshot)} index that match ${escapeHtml(describeFilter(filter))}` : `Every listed model of the ${escapeHtml(view.snapshot)} index`}, by ${sort}.</caption>
<thead><tr><th scope="col">Model</th><th scope="col">Task</th><th scope="col">Library</th><th scope="col" class="n">Weights</th><th scope="col" class="n">Downloads</th><th scope="col" class="n">Likes</th></tr></thead>
<tbody>
${rows.map(row).join('\n')}
</tbody></table>
</section>`;
}

export function browsePage(view: BrowseView, sort: BrowseSort, filter: BrowseFilter = {}): string {
  return page(
    {
      title: 'Models · Model hub',
      current: 'models',
      script: FILTER_SCRIPT,
      alternates: [{ href: '/models?format=json', type: 'application/json' }],
    },
    browseSection(view, sort, filter),
  );
}

/** The home page: what the hub is, how to point a tool at it, and the browse table. */
export function homePage(index: IndexStore, origin: string, view: BrowseView): string {
  const host = origin.replace(/^https?:\/\//, '');
  const ex = examples(index);
  const id = ex.model?.id ?? 'OWNER/NAME';
  const oci = ex.ociModel ? ociName(ex.ociModel.owner, ex.ociModel.name) : 'owner/name';
  const body = `<h1>Model hub</h1>
<p>A read-only hub for open model files. It holds names, addresses and directions, never weight bytes: every download is a redirect to a live source, and you check the SHA-256 that this index gives.</p>
<dl class="facts"><dt>Snapshot</dt><dd>${escapeHtml(index.snapshot)}</dd><dt>Models</dt><dd>${index.totals.models}</dd><dt>Files</dt><dd>${index.totals.files} (${formatBytes(index.totals.bytes)})</dd><dt>Catalog</dt><dd><a class="hash" href="/api/v1/objects/${escapeHtml(index.catalogAddress)}">${escapeHtml(index.catalogAddress)}</a></dd></dl>
<h2>Point a tool at this hub</h2>
<pre class="cmd"><code>export HF_ENDPOINT=${escapeHtml(origin)}      # hf CLI, huggingface_hub
hf download ${escapeHtml(id)}
export MODEL_ENDPOINT=${escapeHtml(origin)}/  # llama.cpp -hf
ollama pull --insecure ${escapeHtml(host)}/${escapeHtml(oci)}:latest
# MCP (Streamable HTTP): ${escapeHtml(origin)}/mcp</code></pre>
${browseSection(view, 'trending', {}, 2)}`;
  return page({ title: 'Model hub', current: 'home', script: FILTER_SCRIPT }, body);
}
