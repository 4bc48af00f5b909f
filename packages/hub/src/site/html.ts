/**
 * The site's shared markup: escaping, the page frame (inline CSS, landmarks, skip link), number
 * formatting, a small Markdown renderer for the docs twins, and the favicon. No external assets.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/** Inline styles for every page. Colours meet WCAG AA contrast on their backgrounds. */
export const CSS = `:root{--fg:#1b1f24;--muted:#4a5461;--bg:#fff;--panel:#f3f5f7;--line:#d0d7de;--link:#0550ae;--ok:#116329;--bad:#a40e26;--focus:#bf3989}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--link)}a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5em}.skip:focus{left:.5em;z-index:9}
header.top{border-bottom:1px solid var(--line);background:var(--panel)}header.top .in,main,footer .in{max-width:1100px;margin:0 auto;padding:.75em 1em}
header.top .in{display:flex;flex-wrap:wrap;gap:.5em 1.5em;align-items:center}.brand{font-weight:700;font-size:1.1em;color:var(--fg);text-decoration:none}
nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:.25em 1em;margin:0;padding:0}
nav a[aria-current=page]{font-weight:700;color:var(--fg)}
h1{font-size:1.6em;margin:.4em 0}h2{font-size:1.25em;margin:1.4em 0 .5em}h3{font-size:1.05em}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
pre{background:var(--panel);border:1px solid var(--line);padding:.6em .8em;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
pre.cmd code{user-select:all}
table{border-collapse:collapse;width:100%;margin:.5em 0}th,td{text-align:left;padding:.3em .5em;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--panel)}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.muted{color:var(--muted)}.ok{color:var(--ok);font-weight:600}.bad{color:var(--bad);font-weight:600}
.hash{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.8em;word-break:break-all}
form.filters{display:flex;flex-wrap:wrap;gap:.5em 1em;align-items:flex-end;background:var(--panel);border:1px solid var(--line);padding:.6em .8em}
form.filters label{display:flex;flex-direction:column;font-size:.9em}input,select,button{font:inherit;padding:.25em .4em;border:1px solid #6e7781;border-radius:3px;background:#fff;color:var(--fg)}
button{cursor:pointer}.sort a[aria-current]{font-weight:700;color:var(--fg)}
dl.facts{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.2em 1em}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
td,th,dd,code,caption{overflow-wrap:anywhere}
@media (max-width:640px){table.cards,table.cards tbody,table.cards tr,table.cards td,table.cards th[scope=row],table.cards caption{display:block;width:100%}table.cards thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}table.cards tr{border-bottom:1px solid var(--line);padding:.4em 0}table.cards td,table.cards th[scope=row]{border:0;padding:.1em .5em;text-align:left;background:none}table.cards td[data-label]::before{content:attr(data-label) ": ";font-weight:600;color:var(--muted)}table:not(.cards){display:block;overflow-x:auto}dl.facts{grid-template-columns:minmax(0,1fr)}dl.facts dd{margin-bottom:.3em}}
footer{border-top:1px solid var(--line);margin-top:2em;background:var(--panel)}`;

export interface PageOptions {
  title: string;
  /** the nav entry to mark as current */
  current?: 'home' | 'models' | 'registry' | 'spaces' | 'buckets' | 'docs' | 'health';
  /** alternate representations for the head (`<link rel="alternate">`) */
  alternates?: { href: string; type: string }[];
  /** one inline script (filtering only) */
  script?: string;
}

const NAV: { key: PageOptions['current']; href: string; label: string }[] = [
  { key: 'models', href: '/models/', label: 'Models' },
  { key: 'registry', href: '/registry', label: 'Registry' },
  { key: 'spaces', href: '/spaces', label: 'Spaces' },
  { key: 'buckets', href: '/buckets', label: 'Buckets' },
  { key: 'docs', href: '/docs', label: 'Docs' },
  { key: 'health', href: '/health', label: 'Health' },
];

/** The page frame: landmarks, skip link, nav, footer. `body` is already-escaped HTML. */
export function page(opts: PageOptions, body: string): string {
  const nav = NAV.map((n) => `<li><a href="${n.href}"${n.key === opts.current ? ' aria-current="page"' : ''}>${n.label}</a></li>`).join('');
  const alt = (opts.alternates ?? [])
    .map((a) => `<link rel="alternate" type="${escapeHtml(a.type)}" href="${escapeHtml(a.href)}">`)
    .join('');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(opts.title)}</title><link rel="icon" href="/favicon.ico">${alt}
<style>${CSS}</style></head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top"><div class="in"><a class="brand" href="/">Model hub</a><nav aria-label="Sections"><ul>${nav}</ul></nav></div></header>
<main id="main" tabindex="-1">
${body}
</main>
<footer><div class="in"><nav aria-label="Machine surfaces"><ul><li><a href="/agent.md">Agent brief</a></li><li><a href="/llms.txt">llms.txt</a></li><li><a href="/.well-known/model-hub.json">Descriptor</a></li><li><a href="/openapi.json">OpenAPI</a></li><li><a href="/.well-known/agent-card.json">Agent card</a></li><li><a href="/api/hub/health">Health (JSON)</a></li></ul></nav>
<p class="muted">Read-only. The hub never serves weight bytes: downloads redirect to a live source, and you check the SHA-256 from this index.</p></div></footer>
${opts.script ? `<script>${opts.script}</script>` : ''}
</body>
</html>
`;
}

// ---- numbers ---------------------------------------------------------------------------------

/** Byte sizes on the site: the one formatting rule of core-index (binary units, KiB/MiB/GiB). */
export { formatBytes } from '@hub/core-index';

export function formatCount(n: number | undefined): string {
  if (n === undefined) return '–';
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  if (n < 1_000_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  return `${(n / 1_000_000_000).toFixed(1)}B`;
}

/** `/models/{owner}/{name}` with each part encoded. */
export function modelHref(id: string): string {
  return `/models/${id.split('/').map(encodeURIComponent).join('/')}`;
}

// ---- Markdown --------------------------------------------------------------------------------

function inline(s: string): string {
  // Split out code spans first so their content is not formatted.
  return s
    .split(/(`[^`]+`)/)
    .map((part) => {
      if (part.startsWith('`') && part.endsWith('`') && part.length > 1) return `<code>${escapeHtml(part.slice(1, -1))}</code>`;
      let t = escapeHtml(part);
      t = t.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, label: string, href: string) => {
        const safe = /^(https?:|\/|#|\.)/.test(href) ? href : '#';
        return `<a href="${safe}">${label}</a>`;
      });
      t = t.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>').replace(/(^|[\s(])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>');
      // `_word_` emphasis as CommonMark reads it: underscores at word boundaries only (snake_case stays as written)
      t = t.replace(/(^|[\s(])_([^_\s](?:[^_]*[^_\s])?)_(?=$|[\s).,;:!?])/g, '$1<em>$2</em>');
      return t;
    })
    .join('');
}

/**
 * A small Markdown renderer for the hub's own pages: headings, paragraphs, lists (one level and
 * ordered), fenced code, tables, inline code, links, bold and italics. Input is trusted (our docs).
 */
export function markdownToHtml(md: string): string {
  const lines = md.replace(/\r\n/g, '\n').split('\n');
  const out: string[] = [];
  let i = 0;
  const para: string[] = [];
  const flush = () => {
    if (para.length) out.push(`<p>${inline(para.join(' '))}</p>`);
    para.length = 0;
  };
  while (i < lines.length) {
    const line = lines[i] as string;
    if (/^```/.test(line)) {
      flush();
      const code: string[] = [];
      i++;
      while (i < lines.length && !/^```/.test(lines[i] as string)) code.push(lines[i++] as string);
      i++;
      out.push(`<pre><code>${escapeHtml(code.join('\n'))}</code></pre>`);
      continue;
    }
    const h = /^(#{1,6})\s+(.*)$/.exec(line);
    if (h) {
      flush();
      const level = (h[1] as string).length;
      const text = h[2] as string;
      const id = text
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '');
      out.push(`<h${level} id="${id}">${inline(text)}</h${level}>`);
      i++;
      continue;
    }
    if (/^\|/.test(line)) {
      flush();
      const rows: string[][] = [];
      while (i < lines.length && /^\|/.test(lines[i] as string)) {
        const cells = (lines[i] as string)
          .trim()
          .replace(/^\||\|$/g, '')
          .split('|')
          .map((c) => c.trim());
        if (!cells.every((c) => /^:?-+:?$/.test(c))) rows.push(cells);
        i++;
      }
      const [head, ...body] = rows;
      out.push(
        `<table><thead><tr>${(head ?? []).map((c) => `<th scope="col">${inline(c)}</th>`).join('')}</tr></thead><tbody>${body
          .map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`)
          .join('')}</tbody></table>`,
      );
      continue;
    }
    const li = /^(\s*)([-*]|\d+\.)\s+(.*)$/.exec(line);
    if (li) {
      flush();
      const ordered = /\d/.test(li[2] as string);
      const items: string[] = [];
      while (i < lines.length) {
        const m = /^(\s*)([-*]|\d+\.)\s+(.*)$/.exec(lines[i] as string);
        if (m) {
          items.push(m[3] as string);
          i++;
        } else if (/^\s{2,}\S/.test(lines[i] as string) && items.length) {
          items[items.length - 1] += ` ${(lines[i] as string).trim()}`;
          i++;
        } else break;
      }
      const tag = ordered ? 'ol' : 'ul';
      out.push(`<${tag}>${items.map((t) => `<li>${inline(t)}</li>`).join('')}</${tag}>`);
      continue;
    }
    if (line.trim() === '') {
      flush();
      i++;
      continue;
    }
    para.push(line.trim());
    i++;
  }
  flush();
  return out.join('\n');
}

// ---- favicon ---------------------------------------------------------------------------------

/**
 * A 16×16 32-bit ICO (a dark rounded square with a light "h"), built in code so no binary is checked in.
 */
export function faviconIco(): Uint8Array {
  const size = 16;
  const pixels = size * size * 4;
  const mask = size * 4; // 1 bpp AND mask, rows padded to 32 bits
  const bytes = new Uint8Array(6 + 16 + 40 + pixels + mask);
  const v = new DataView(bytes.buffer);
  v.setUint16(2, 1, true); // type icon
  v.setUint16(4, 1, true); // one image
  bytes[6] = size;
  bytes[7] = size;
  v.setUint16(10, 1, true); // planes
  v.setUint16(12, 32, true); // bpp
  v.setUint32(14, 40 + pixels + mask, true);
  v.setUint32(18, 22, true);
  v.setUint32(22, 40, true); // BITMAPINFOHEADER
  v.setInt32(26, size, true);
  v.setInt32(30, size * 2, true);
  v.setUint16(34, 1, true);
  v.setUint16(36, 32, true);
  const glyph = [
    '',
    '',
    '',
    '  ##',
    '  ##',
    '  ##',
    '  ######',
    '  ###  ##',
    '  ##   ##',
    '  ##   ##',
    '  ##   ##',
    '  ##   ##',
    '  ##   ##',
    '',
    '',
    '',
  ];
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const corner = (x < 1 || x > 14) && (y < 1 || y > 14);
      const on = (glyph[y] ?? '')[x - 2] === '#';
      const at = 62 + ((size - 1 - y) * size + x) * 4; // rows bottom-up, BGRA
      if (corner) continue; // transparent
      const [r, g, b] = on ? [255, 255, 255] : [5, 80, 174];
      bytes[at] = b;
      bytes[at + 1] = g;
      bytes[at + 2] = r;
      bytes[at + 3] = 255;
    }
  }
  return bytes;
}
