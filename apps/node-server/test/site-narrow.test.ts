import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';

/**
 * The pages a new user meets first, in headless Chromium (Debian's, never a downloaded one) at a phone's width
 * (390 px) and a laptop's (1280 px): nothing is cut off (the page never scrolls sideways: scrollWidth ≤ the
 * viewport), with a screenshot of each in test-artifacts/site/. And the browse page's search as people type it.
 */
const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test-artifacts', 'site');

let hub: TestHub;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) return;
  await mkdir(ARTIFACTS, { recursive: true });
  hub = await startTestHub();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
});
afterAll(async () => {
  await browser?.close();
  await hub?.close();
});

const PAGES: Array<[string, string]> = [
  ['home', '/'],
  ['models', '/models/'],
  ['model-gguf', '/models/demo/tiny-llama-2-GGUF'],
  ['model-bert', '/models/demo/tiny-bert-synthetic'],
  ['health', '/health'],
];

describe.skipIf(!existsSync(CHROMIUM))('the site at 390 and 1280 px (needs Chromium at /usr/bin/chromium)', () => {
  for (const width of [390, 1280]) {
    it(`nothing is cut off at ${width} px: / , /models/, the model pages and /health`, async () => {
      const context = await browser.newContext({ viewport: { width, height: 844 } });
      try {
        const wide: string[] = [];
        for (const [name, p] of PAGES) {
          const page = await context.newPage();
          const res = await page.goto(`${hub.url}${p}`, { waitUntil: 'load' });
          expect(res?.status(), p).toBe(200);
          const m = await page.evaluate(() => {
            const vw = document.documentElement.clientWidth;
            // what sticks out, to say where it is when this fails
            const out = [...document.querySelectorAll('body *')]
              .filter((e) => e.getBoundingClientRect().right > vw + 0.5)
              .slice(0, 3)
              .map(
                (e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className ? `.${String(e.className).split(' ')[0]}` : ''}`,
              );
            return { scroll: document.documentElement.scrollWidth, body: document.body.scrollWidth, vw, out };
          });
          await page.screenshot({ path: path.join(ARTIFACTS, `${name}-${width}.png`), fullPage: true });
          if (Math.max(m.scroll, m.body) > width)
            wide.push(`${p}: scrollWidth ${Math.max(m.scroll, m.body)} > ${width} (${m.out.join(', ')})`);
          await page.close();
        }
        expect(wide).toEqual([]);
      } finally {
        await context.close();
      }
    });
  }

  it('/models/?search= searches as the API does; no match says so, with and without JavaScript', async () => {
    for (const javaScriptEnabled of [false, true]) {
      const context = await browser.newContext({ javaScriptEnabled });
      const page = await context.newPage();
      try {
        await page.goto(`${hub.url}/models/?search=llama`);
        const rows = await page.locator('#models tbody tr:not([hidden])').allTextContents();
        expect(rows).toHaveLength(1);
        expect(rows[0]).toContain('demo/tiny-llama-2-GGUF');
        expect(await page.locator('#f-q').inputValue()).toBe('llama');
        await page.goto(`${hub.url}/models/?search=no-such-model-anywhere`);
        expect(await page.locator('#none').isVisible()).toBe(true);
        expect(await page.locator('#none').textContent()).toContain('No model matches "no-such-model-anywhere"');
        expect(await page.locator('#models').isVisible()).toBe(false);
        if (javaScriptEnabled) {
          // typing a word nothing has, then clearing it, shows and hides the line without a reload
          await page.goto(`${hub.url}/models/`);
          expect(await page.locator('#none').isVisible()).toBe(false);
          await page.fill('#f-q', 'zzzz-nothing');
          await expect.poll(() => page.locator('#none').isVisible()).toBe(true);
          await page.fill('#f-q', '');
          await expect.poll(() => page.locator('#none').isVisible()).toBe(false);
          expect(await page.locator('#models tbody tr:not([hidden])').count()).toBe(2);
        }
      } finally {
        await context.close();
      }
    }
  });
});
