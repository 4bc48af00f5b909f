import type { IndexStore } from '@hub/core-index';

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** A minimal server-rendered home page (the full site grows in the discovery/site work). */
export function homePage(index: IndexStore): string {
  const rows = index
    .models()
    .map(
      (m) =>
        `<tr><td><code>${escapeHtml(m.id)}</code></td><td>${m.files.length}</td><td><code>${m.revision.slice(0, 12)}</code></td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Model hub</title></head>
<body>
<header><h1>Model hub</h1><p>A read-only hub for open model files: every download is a redirect to a live source, with the SHA-256 from this index.</p></header>
<main>
<p>Snapshot ${escapeHtml(index.snapshot)} · ${index.totals.models} models · catalog <code>${escapeHtml(index.catalogAddress)}</code></p>
<table><thead><tr><th scope="col">Model</th><th scope="col">Files</th><th scope="col">Revision</th></tr></thead>
<tbody>
${rows}
</tbody></table>
</main>
<footer><a href="/agent.md">Agent brief</a> · <a href="/.well-known/model-hub.json">Descriptor</a> · <a href="/api/hub/health">Source health</a></footer>
</body>
</html>
`;
}
