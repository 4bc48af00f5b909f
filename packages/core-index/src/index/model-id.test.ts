import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { modelHostFixtures } from '../../../../fixtures/model-host/load.js';
import { MemoryMissingLog } from '../deps.js';
import { isModelId } from './model-id.js';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

describe('the model id grammar (one definition)', () => {
  it('accepts owner/name as the model host validates repository ids, and nothing else', () => {
    for (const ok of [
      'a/b',
      'google-bert/bert-base-uncased',
      'TheBloke/Llama-2-7B-GGUF',
      'org_x/model.v1',
      '_a/_b',
      `${'a'.repeat(96)}/b`,
    ]) {
      expect(isModelId(ok), ok).toBe(true);
    }
    for (const bad of [
      '',
      'a',
      'a/b/c',
      '-a/b',
      'a/b-',
      'a/.b',
      'a/b.',
      'a--b/c',
      'a/b..c',
      ' a/b',
      'a /b',
      'a/b%20',
      `${'a'.repeat(97)}/b`,
      'a/',
      '/b',
      42,
      null,
    ]) {
      expect(isModelId(bad), String(bad)).toBe(false);
    }
  });

  it('accepts every id of the 600 real trending rows', () => {
    const rows = modelHostFixtures().trending as Array<{ id?: string; modelId?: string }>;
    expect(rows.length).toBeGreaterThan(500);
    expect(rows.map((r) => r.id ?? r.modelId).filter((id) => !isModelId(id))).toEqual([]);
  });

  it('the in-memory missing log keeps only what the grammar accepts, as the file and KV logs do', async () => {
    const log = new MemoryMissingLog();
    for (const id of ['good/model', 'bad id/x', '../etc/passwd', 'a--b/c', 'x']) log.record(id);
    expect(await log.list()).toEqual(['good/model']);
  });

  it('no other file writes the grammar again (a regular expression of owner/name parts)', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        if (name === 'node_modules' || name === 'dist' || name === '.wrangler') continue;
        const p = path.join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (/\.ts$/.test(name) && !name.endsWith('.test.ts') && !p.endsWith(path.join('index', 'model-id.ts'))) {
          const text = readFileSync(p, 'utf8');
          // `{1,96}`, `{0,95}` and the like: the part-length rule of the model host's validator
          if (/\{[01],9[4-6]\}/.test(text) || /isModelId\s*\(id: unknown\)/.test(text)) offenders.push(path.relative(root, p));
        }
      }
    };
    for (const top of ['packages', 'apps']) {
      for (const unit of readdirSync(path.join(root, top))) {
        const src = path.join(root, top, unit, 'src');
        try {
          if (statSync(src).isDirectory()) walk(src);
        } catch {
          // a package without src/
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
