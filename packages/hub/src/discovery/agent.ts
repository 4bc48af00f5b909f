import type { AgentCard, IndexStore } from '@hub/core-index';
import { DOC_PAGES } from '../site/docs-content.js';
import { examples } from './sections.js';

/** The AgentCard at `/.well-known/agent-card.json`: absolute URLs, so it names the origin asked. */
export function agentCard(index: IndexStore, origin: string, version: string): AgentCard {
  const ex = examples(index);
  const id = ex.model?.id ?? 'OWNER/NAME';
  const oci = ex.ociModel?.id.toLowerCase() ?? 'owner/name';
  const host = origin.replace(/^https?:\/\//, '');
  return {
    name: 'Model hub',
    description:
      'A read-only hub for open model files. Search the daily index, inspect a model (files, sizes, SHA-256, sources), get a download URL that redirects to a live source with the hash to check, pull GGUF models over OCI, or use the same over MCP. Reads need no token.',
    url: origin,
    version,
    documentationUrl: `${origin}/llms.txt`,
    capabilities: {
      streaming: false,
      pushNotifications: false,
      stateTransitionHistory: false,
      mcp: `${origin}/mcp`,
      openapi: `${origin}/openapi.json`,
    },
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json', 'text/markdown'],
    skills: [
      {
        id: 'search',
        name: 'Search models',
        description: 'Find models in the daily index by words in the id, task, library or tag, sorted by trending, downloads or likes.',
        tags: ['search', 'models', 'huggingface-dialect'],
        examples: [
          `GET ${origin}/api/models?search=llama&limit=20`,
          `GET ${origin}/api/models?pipeline_tag=text-generation&sort=downloads`,
        ],
      },
      {
        id: 'inspect',
        name: 'Inspect a model',
        description: 'Every file of the indexed revision with its size and SHA-256, the facts of the model, and which sources hold it.',
        tags: ['model', 'files', 'sha256'],
        examples: [
          `GET ${origin}/api/models/${id}`,
          `GET ${origin}/api/models/${id}/tree/main?recursive=true`,
          `GET ${origin}/models?format=json`,
        ],
      },
      {
        id: 'download-and-verify',
        name: 'Download and verify',
        description:
          'Download through a redirect to a live source and check the bytes against the SHA-256 from the index (sha256sum -c with SHA256SUMS); index objects hash back to their BLAKE3 address.',
        tags: ['download', 'verify', 'sha256', 'blake3'],
        examples: [
          `curl -fLO ${origin}/${id}/resolve/main/SHA256SUMS && sha256sum -c --ignore-missing SHA256SUMS`,
          `HF_ENDPOINT=${origin} hf download ${id}`,
          `${origin}/docs/verification.md`,
        ],
      },
      {
        id: 'oci-pull',
        name: 'Pull over OCI',
        description:
          'An OCI distribution registry over the same index: one tag per GGUF quantisation, layers named by SHA-256; weight layers redirect to a live source.',
        tags: ['oci', 'ollama', 'gguf', 'registry'],
        examples: [`ollama pull --insecure ${host}/${oci}:latest`, `GET ${origin}/v2/${oci}/tags/list`],
      },
      {
        id: 'mcp',
        name: 'MCP tools',
        description: 'The same search, details, download and health as MCP tools over Streamable HTTP (stateless, JSON replies).',
        tags: ['mcp', 'tools'],
        examples: [`${origin}/mcp`, 'tools: hub_repo_search, hub_repo_details, get_download, hub_health, hub_archive'],
      },
    ],
  };
}

/** `/llms.txt`: the documentation index (llmstxt.org format), listing every doc and machine surface. */
export function llmsTxt(index: IndexStore, origin: string): string {
  return `# Model hub

> A read-only hub for open model files (${index.totals.models} models, snapshot ${index.snapshot}). It holds names, addresses and directions, never weight bytes: downloads redirect to a live source, and the client checks the SHA-256 from the index.

Reads need no token and work from any origin. Inference is out of scope.

## Start here
- [Agent brief](${origin}/agent.md): one screen on finding, downloading and verifying models
- [Descriptor](${origin}/.well-known/model-hub.json): today's catalog address and where everything lives (also \`/\` with Accept: application/json)
- [OpenAPI 3.1](${origin}/openapi.json): every route, its answers and error shapes (also /.well-known/openapi.json)
- [Agent card](${origin}/.well-known/agent-card.json): skills for search, inspect, download-and-verify, OCI pull and MCP

## Docs
- [Machine description for people](${origin}/docs): every route ([Markdown](${origin}/docs/api.md))
${DOC_PAGES.map((p) => `- [${p.title}](${origin}/docs/${p.slug}.md): HTML at ${origin}/docs/${p.slug}`).join('\n')}

## Sections (Accept: application/json gives a SectionDescriptor; ?format=md the brief)
- [Models](${origin}/models): the index; browse at ${origin}/models/
- [Registry](${origin}/registry): OCI distribution at ${origin}/v2/
- [Spaces](${origin}/spaces): browser-only apps sealed under one BLAKE3 root, served at ${origin}/spaces/{name}/ and ${origin}/spaces/blake3:{root}/
- [Buckets](${origin}/buckets): OCI trees the hub holds (datasets, adapters, evaluation sets) in repositories hub/buckets/{name}, every blob checked against its sha256 when pushed; pull with any OCI client
- [Docs](${origin}/docs?format=json): every page and its Markdown twin

## Machine surfaces
- Model-host dialect: ${origin}/api/models, ${origin}/{owner}/{name}/resolve/main/{path} (set HF_ENDPOINT=${origin})
- OCI registry: ${origin}/v2/
- Buckets (OCI): ${origin}/v2/hub/buckets/{name}/tags/list, /manifests/{tag}, /blobs/{digest}; pushes need a registry token (Basic or Bearer) and go to node-server
- MCP (Streamable HTTP): ${origin}/mcp
- Objects: ${origin}/api/v1/objects/{blake3:address}, capabilities at ${origin}/api/v1/capabilities
- Source health: ${origin}/api/hub/health (page: ${origin}/health)
`;
}

export function robotsTxt(origin: string): string {
  return `# Pages and docs may be indexed; API and download routes may not (downloads redirect to other hosts).
User-agent: *
Allow: /
Disallow: /api/
Disallow: /v2/
Disallow: /mcp
Disallow: /via/
Disallow: /*/*/resolve/
Disallow: /*/*/raw/

# Documentation index for language models: ${origin}/llms.txt
`;
}
