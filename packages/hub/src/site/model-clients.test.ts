import type { SourceConfig } from '@hub/core-index';
import { createTestHub } from '@hub/core-index/testing';
import { describe, expect, it } from 'vitest';
import { commandsFor, modelSourcesHtml } from './pages.js';

// SYNTHETIC sources: the fixture models name `mirror-a`; here it is once http on a LAN, once public https.
const source = (url: string): SourceConfig[] => [{ name: 'mirror-a', display: 'Mirror A', token: 'a', kind: 'http', url }];

describe('model page: which sources each client can use, and the explicit OCI tags', () => {
  it('an http source behind an https hub is marked as not for Ollama', async () => {
    const t = await createTestHub({ sources: source('http://192.168.1.5/{id}/{path}') });
    const m = t.index.warm('synthetic-org/tiny-llama-GGUF');
    if (!m) throw new Error('fixture missing');
    expect(modelSourcesHtml(m, t.health, 'https://hub.example.org')).toContain('all clients except Ollama');
    // An http hub on the LAN may send Ollama there.
    expect(modelSourcesHtml(m, t.health, 'http://192.168.1.2:8080')).toContain('<td data-label="Clients">all clients</td>');
  });

  it('a local https source is for Ollama only as a last resort; a public https one is for all', async () => {
    const lan = await createTestHub({ sources: source('https://mirror.lan/{id}/{path}') });
    const m = lan.index.warm('synthetic-org/tiny-llama-GGUF');
    if (!m) throw new Error('fixture missing');
    expect(modelSourcesHtml(m, lan.health, 'https://hub.example.org')).toContain('Ollama only when no other live source');
    const pub = await createTestHub({ sources: source('https://cdn.example.org/{id}/{path}') });
    expect(modelSourcesHtml(m, pub.health, 'https://hub.example.org')).toContain('<td data-label="Clients">all clients</td>');
  });

  it('commands name docker model pull, modctl pull with -modelpack, and state the -modelpack/-dmr tags', async () => {
    const t = await createTestHub();
    const gguf = t.index.warm('synthetic-org/tiny-llama-GGUF');
    const bert = t.index.warm('synthetic-org/bert-ish');
    if (!gguf || !bert) throw new Error('fixture missing');
    const g = commandsFor(gguf, 'http://localhost:8080');
    expect(g).toContain('docker model pull localhost:8080/synthetic-org/tiny-llama-gguf:Q4_K_M');
    expect(g).toContain('modctl pull --plain-http localhost:8080/synthetic-org/tiny-llama-gguf:Q4_K_M-modelpack');
    expect(g).toContain('<code>{tag}-dmr</code>');
    const b = commandsFor(bert, 'https://hub.example.org');
    expect(b).toContain('modctl pull hub.example.org/synthetic-org/bert-ish:latest-modelpack');
    expect(b).not.toContain('docker model pull');
  });
});
