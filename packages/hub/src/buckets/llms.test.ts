import { createTestHub, request } from '@hub/core-index/testing';
import { describe, expect, it } from 'vitest';
import { composedHub } from '../testing/test-hub.js';

describe('llms.txt on spaces and buckets', () => {
  it('describes the bucket and space routes instead of claiming the sections are empty', async () => {
    const t = await createTestHub();
    const hub = composedHub(t.deps);
    const llms = (await request(hub, '/llms.txt')).text;
    expect(llms).not.toContain('none held here yet');
    expect(llms).toContain('/v2/hub/buckets/{name}/tags/list');
    expect(llms).toContain('/spaces/blake3:{root}/');
  });
});
