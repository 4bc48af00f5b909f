import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import axe from 'axe-core';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';

/**
 * The website in headless Chromium (Debian's `chromium`; never a downloaded browser) against
 * node-server on the bundled demo index: no console errors, filtering without reload, every link
 * resolves, axe-core finds no serious or critical violation; screenshots go to test-artifacts/.
 */

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test-artifacts', 'site');
const hasChromium = existsSync(CHROMIUM);

let hub: TestHub;
let browser: Browser;

beforeAll(async () => {
  if (!hasChromium) return;
  await mkdir(ARTIFACTS, { recursive: true });
  hub = await startTestHub();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await hub?.close();
});

interface Visit {
  page: Page;
  errors: string[];
}

/** Open a page, collecting console errors, failed requests and HTTP errors of every sub-request (favicon included). */
async function visit(url: string): Promise<Visit> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400) errors.push(`http ${r.status()}: ${r.url()}`);
  });
  const res = await page.goto(url, { waitUntil: 'load' });
  expect(res?.status(), url).toBe(200);
  // The browser asks for the favicon by itself; give it a moment to.
  await page.waitForTimeout(150);
  return { page, errors };
}

async function axeCheck(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axe.source });
  const result = (await page.evaluate(async () => {
    const w = window as unknown as {
      axe: { run(ctx: Document, opts: object): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
    };
    return w.axe.run(document, { resultTypes: ['violations'] });
  })) as { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    );
}

/** Every same-origin link on the page answers non-404 (redirects not followed: they point at byte sources). */
async function checkLinks(page: Page): Promise<string[]> {
  const hrefs = await page.$$eval('a[href]', (as) => as.map((a) => (a as HTMLAnchorElement).href));
  const bad: string[] = [];
  for (const href of [...new Set(hrefs)]) {
    const u = new URL(href);
    if (u.origin !== new URL(hub.url).origin) {
      bad.push(`external link ${href}`);
      continue;
    }
    u.hash = '';
    const res = await fetch(u, { redirect: 'manual', headers: { accept: 'text/html' } });
    if (res.status === 404 || res.status >= 500) bad.push(`${res.status} ${href}`);
    await res.arrayBuffer();
  }
  return bad;
}

const PAGES = [
  { name: 'home', path: '/' },
  { name: 'browse', path: '/models/' },
  { name: 'model', path: '/models/demo/tiny-llama-2-GGUF' },
  { name: 'model-bert', path: '/models/demo/tiny-bert-synthetic' },
  { name: 'section-registry', path: '/registry' },
  { name: 'section-models', path: '/models' },
  { name: 'docs', path: '/docs' },
  { name: 'docs-sources', path: '/docs/sources' },
  { name: 'docs-verification', path: '/docs/verification' },
  { name: 'health', path: '/health' },
];

describe.skipIf(!hasChromium)('the site in headless Chromium (needs Chromium at /usr/bin/chromium)', () => {
  for (const p of PAGES) {
    it(`${p.name} (${p.path}): no console errors, no serious axe violations, every link resolves, screenshot`, async () => {
      const { page, errors } = await visit(`${hub.url}${p.path}`);
      try {
        expect(await page.locator('main').count()).toBe(1);
        expect(await page.locator('header').count()).toBeGreaterThanOrEqual(1);
        expect(await page.locator('h1').count()).toBe(1);
        await page.screenshot({ path: path.join(ARTIFACTS, `${p.name}.png`), fullPage: true });
        expect(await axeCheck(page)).toEqual([]);
        expect(await checkLinks(page)).toEqual([]);
        expect(errors).toEqual([]);
      } finally {
        await page.context().close();
      }
    });
  }

  it('the checks can fail: axe reports an injected violation, and the link check sees the links', async () => {
    const { page } = await visit(`${hub.url}/health`);
    try {
      expect(await page.$$eval('a[href]', (as) => as.length)).toBeGreaterThan(8);
      await page.evaluate(() => {
        const b = document.createElement('button');
        document.querySelector('main')?.appendChild(b); // a button without a name: axe button-name (critical)
      });
      expect((await axeCheck(page)).join('\n')).toContain('button-name');
    } finally {
      await page.context().close();
    }
  });

  it('filters the browse list by text, task and library without a reload', async () => {
    const { page, errors } = await visit(`${hub.url}/models/`);
    try {
      const visible = async () => page.locator('#models tbody tr:not([hidden])').allTextContents();
      expect(await visible()).toHaveLength(2);
      await page.evaluate(() => {
        (window as unknown as { marker: number }).marker = 42;
      });
      await page.fill('#f-q', 'bert');
      const one = await visible();
      expect(one).toHaveLength(1);
      expect(one[0]).toContain('demo/tiny-bert-synthetic');
      await expect.poll(() => page.locator('#count').textContent()).toBe('1 of 2 models shown');
      await page.fill('#f-q', '');
      expect(await visible()).toHaveLength(2);
      const tasks = await page.$$eval('#f-task option', (os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
      expect(tasks.length).toBeGreaterThan(0);
      await page.selectOption('#f-task', tasks[0] as string);
      const byTask = await visible();
      expect(byTask.length).toBeGreaterThanOrEqual(1);
      expect(byTask.length).toBeLessThan(2);
      await page.selectOption('#f-task', '');
      const libs = await page.$$eval('#f-lib option', (os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
      await page.selectOption('#f-lib', libs[0] as string);
      expect((await visible()).length).toBeGreaterThanOrEqual(1);
      // Enter in the search box does not reload either.
      await page.press('#f-q', 'Enter');
      expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
      await page.screenshot({ path: path.join(ARTIFACTS, 'browse-filtered.png'), fullPage: true });
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
    }
  });

  it('sorts without JavaScript, and the filter form works without JavaScript', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      await page.goto(`${hub.url}/models/`);
      await page.click('a[href="/models/?sort=likes"]');
      expect(page.url()).toContain('sort=likes');
      expect(await page.locator('.sort a[aria-current]').textContent()).toBe('Likes');
      await page.fill('#f-q', 'llama');
      await page.click('form#filters button[type=submit]');
      await page.waitForURL(/search=llama/);
      const rows = await page.locator('#models tbody tr').allTextContents();
      expect(rows).toHaveLength(1);
      expect(rows[0]).toContain('demo/tiny-llama-2-GGUF');
    } finally {
      await context.close();
    }
  });

  it('is usable from the keyboard: the skip link comes first and moves focus to the content', async () => {
    const { page } = await visit(`${hub.url}/models/demo/tiny-llama-2-GGUF`);
    try {
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
      await page.keyboard.press('Enter');
      expect(await page.evaluate(() => location.hash)).toBe('#main');
      // Commands are selectable text blocks (copyable without script).
      const cmds = await page.locator('pre.cmd code').allTextContents();
      expect(cmds.join('\n')).toContain('sha256sum -c');
      expect(cmds.join('\n')).toMatch(/HUB_URL=http:\/\/127\.0\.0\.1:\d+ hub get demo\/tiny-llama-2-GGUF:F16 --to tiny-llama-2-GGUF/);
      expect(cmds.join('\n')).toMatch(/ollama pull --insecure 127\.0\.0\.1:\d+\/demo\/tiny-llama-2-gguf:F16/);
    } finally {
      await page.context().close();
    }
  });
});
