import { describe, expect, it } from 'vitest';
import { modelHostFixtures } from '../../../../fixtures/model-host/load.js';
import { MemoryMissingLog } from '../http/deps.js';
import { isModelId } from './model-id.js';

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
});
