import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOC_PAGES } from './docs-content.js';
import { markdownToHtml } from './html.js';

const script = fileURLToPath(new URL('../../scripts/embed-docs.mjs', import.meta.url));

describe('embedded docs', () => {
  it('docs-content.ts is what scripts/embed-docs.mjs writes from docs/*.md (run the script when this fails)', async () => {
    const mod = (await import(pathToFileURL(script).href)) as { generate(): string; OUT: string };
    expect(readFileSync(mod.OUT, 'utf8')).toBe(mod.generate());
  });

  it('embeds the source failover and verification pages', () => {
    expect(DOC_PAGES.map((p) => p.slug)).toEqual(['sources', 'verification']);
    for (const p of DOC_PAGES) expect(p.markdown.startsWith('# ')).toBe(true);
  });

  it('renders the Markdown twins to HTML: headings, code, tables, lists and links, escaped', () => {
    const html = markdownToHtml(
      '# T\n\nA `x<y` [l](/docs)\n\n```sh\necho "<b>"\n```\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n- one\n- two\n\n[bad](javascript:alert(1))',
    );
    expect(html).toContain('<h1 id="t">T</h1>');
    expect(html).toContain('<code>x&lt;y</code>');
    expect(html).toContain('<a href="/docs">l</a>');
    expect(html).toContain('<pre><code>echo &quot;&lt;b&gt;&quot;</code></pre>');
    expect(html).toContain('<th scope="col">a</th>');
    expect(html).toContain('<ul><li>one</li><li>two</li></ul>');
    expect(html).not.toContain('javascript:');
  });
});
