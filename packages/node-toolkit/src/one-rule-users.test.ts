import path from 'node:path';
import { ggufFactsOf } from '@hub/core-index';
import { describe, expect, it } from 'vitest';
import { demoTreeDir } from './demo.js';
import { ggufFacts } from './from-dir.js';

/** The from-dir builder's use of a rule written once: called, and compared with the rule itself. */
describe('GGUF facts: the from-dir builder reads what ggufFactsOf reads', () => {
  it('a local read of the demo GGUF agrees with ggufFactsOf (the upstream run: packages/upstream)', async () => {
    const rel = 'llama-2-tiny-random-F16.gguf';
    const file = path.join(demoTreeDir(), 'demo', 'tiny-llama-2-GGUF', rel);
    const local = await ggufFacts(file, rel);
    expect(local?.architecture).toBe('llama');
    const { gguf } = await import('@huggingface/gguf');
    const parsed = await gguf(file, { allowLocalFile: true, computeParametersCount: true });
    expect(local).toEqual(ggufFactsOf(rel, parsed as never));
  });
});
