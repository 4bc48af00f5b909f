import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { bundledSpacesDir, demoTreeDir } from '@hub/node-toolkit';
import { GGMLFileQuantizationType, gguf } from '@huggingface/gguf';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';

/**
 * The bundled spaces, seeded on first start beside the demo index, driven in headless Chromium:
 * verify hashes picked files in the browser and compares them with the index; gguf reads the demo
 * GGUF's header by Range through the hub's redirect (so the demo mirror must answer CORS and Range).
 */

const CHROMIUM = '/usr/bin/chromium';
const ready = existsSync(CHROMIUM) && bundledSpacesDir() !== undefined;

let hub: TestHub;
let browser: Browser;

beforeAll(async () => {
  if (!ready) return;
  hub = await startTestHub();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});
afterAll(async () => {
  await browser?.close();
  await hub?.close();
});

async function open(url: string): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
  await page.goto(url);
  return { page, errors, close: () => context.close() };
}

describe.skipIf(!ready)('the bundled spaces in Chromium (needs Chromium and the built spaces: pnpm test builds first)', () => {
  it('are seeded on first start and described by /spaces', async () => {
    const d = await (await fetch(`${hub.url}/spaces?format=json`)).json();
    expect(d.inventory.described).toBe(2);
    const catalog = await (await fetch(`${hub.url}/api/v1/objects/${d.catalog.address}`)).json();
    expect(Object.keys(catalog.spaces)).toEqual(['gguf', 'verify']);
    // The demo day's archive entry keeps the spaces catalog of that day.
    const archive = await (await fetch(`${hub.url}/api/hub/archive`)).json();
    expect(archive.days[0].spaces).toBe(d.catalog.address);
  });

  it('verify: the right bytes match; one flipped byte is a mismatch naming the expected SHA-256', async () => {
    const id = 'demo/tiny-bert-synthetic';
    const tree = (await (await fetch(`${hub.url}/api/models/${id}/tree/main?recursive=true`)).json()) as { path: string; oid: string }[];
    const entry = tree.find((e) => e.path === 'config.json') as { path: string; oid: string };
    const bytes = await readFile(path.join(demoTreeDir(), id, 'config.json'));
    const { page, errors, close } = await open(`${hub.url}/spaces/verify/?model=${id}`);
    try {
      expect(await page.inputValue('#model')).toBe(id);
      await page.setInputFiles('#files', { name: 'config.json', mimeType: 'application/json', buffer: bytes });
      await page.click('#run');
      await page.waitForSelector('tbody tr');
      expect(await page.getAttribute('tbody tr', 'class')).toBe('match');
      expect(await page.textContent('tbody tr')).toContain(entry.oid);

      const flipped = Buffer.from(bytes);
      flipped[10] = (flipped[10] as number) ^ 0x01;
      await page.setInputFiles('#files', { name: 'config.json', mimeType: 'application/json', buffer: flipped });
      await page.click('#run');
      await page.waitForSelector('tbody tr.mismatch');
      const text = await page.textContent('tbody tr');
      expect(text).toContain('mismatch');
      expect(text).toContain(`expected ${entry.oid}`);
      expect(await page.textContent('#status')).toContain('0 match, 1 mismatch');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);

  it('gguf: reads the demo GGUF header through the redirect and shows architecture and quantisation', async () => {
    const id = 'demo/tiny-llama-2-GGUF';
    const file = 'llama-2-tiny-random-F16.gguf';
    // What the header really says, read from the bundled file with the same library in Node.
    const local = await gguf(path.join(demoTreeDir(), id, file), { allowLocalFile: true, computeParametersCount: true });
    const md = local.metadata as Record<string, unknown>;
    const arch = String(md['general.architecture']);
    const quant = GGMLFileQuantizationType[md['general.file_type'] as number] as string;
    const { page, errors, close } = await open(`${hub.url}/spaces/gguf/?model=${id}`);
    try {
      await page.waitForSelector(`#file option[value="${file}"]`, { state: 'attached' });
      await page.click('#run');
      await page.waitForSelector('#facts:not([hidden])');
      expect(await page.textContent('#architecture')).toBe(arch);
      expect(await page.textContent('#quantisation')).toBe(quant);
      expect(await page.textContent('#tensors')).toBe(String(local.tensorInfos.length));
      expect(await page.textContent('#parameters')).toBe(local.parameterCount.toLocaleString('en'));
      expect(await page.textContent('#context')).toBe(String(md[`${arch}.context_length`]));
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 60_000);
});
