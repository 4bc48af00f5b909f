import { type IndexStore, ociName } from '@hub/core-index';
import { examples, hostOf } from './sections.js';

/** The last line of the agent brief: a fixed canary, so an agent can tell it read the whole brief. */
export const BRIEF_CANARY = 'canary: model-hub agent brief v1 — end of brief';

/** The one-screen agent brief (`/agent.md`, and `/` for non-browsers that do not ask for JSON). */
export function agentBrief(index: IndexStore, origin: string): string {
  // Each example names a model that can do it: a listed model with files and a source for the API and downloads,
  // a model with a GGUF for llama.cpp and Ollama (none in the index: those lines say so instead of misleading).
  const ex = examples(index);
  const example = ex.model;
  const id = example?.id ?? 'owner/name';
  const file = example?.files.find((f) => /\.(gguf|safetensors|json)$/.test(f.path))?.path ?? example?.files[0]?.path ?? 'config.json';
  const gguf = ex.ociModel && ex.ociFile?.path.toLowerCase().endsWith('.gguf') ? ex.ociModel.id : undefined;
  const ggufLines = gguf
    ? `- llama.cpp: \`MODEL_ENDPOINT=${origin}/ llama-cli -hf ${gguf}\`
- Ollama and OCI clients: \`ollama pull --insecure ${hostOf(origin)}/${ollamaName(gguf)}:latest\`; registry at \`${origin}/v2/\``
    : `- llama.cpp and Ollama (\`llama-cli -hf OWNER/NAME\`, \`ollama pull ${hostOf(origin)}/owner/name:latest\`) need a model with a GGUF file; this index holds none. Registry at \`${origin}/v2/\``;
  return `# Model hub: agent brief

A read-only hub for open model files. It holds names, addresses and directions, never weight bytes.
Every download is a redirect to a live byte source; the expected SHA-256 comes from this hub's index, never from the source.

Index: ${index.totals.models} models, ${index.totals.files} files, snapshot ${index.snapshot}, catalog \`${index.catalogAddress}\`.

## Find a model
- \`GET ${origin}/api/models?search=llama&limit=20\` → rows with \`id\`, \`sha\` (the indexed commit) and an \`svc\` block.
- \`GET ${origin}/api/models/${id}\` → files (\`siblings\`) at the indexed revision.
- \`GET ${origin}/api/models/${id}/tree/main?recursive=true\` → every file with \`oid\` = its SHA-256 and \`size\`.

## Download and verify
- \`curl -L -o out ${origin}/${id}/resolve/main/${file}\` → a 302 to a live source; headers \`X-Hub-Source\`, \`X-Linked-Etag\` (the SHA-256), \`X-Linked-Size\`, \`X-Repo-Commit\`.
- \`curl -L ${origin}/${id}/resolve/main/SHA256SUMS\` then \`sha256sum -c SHA256SUMS\` in the download folder.
- The hub never verifies bytes on read: you hash what arrives.

## Existing tools
- huggingface_hub / hf CLI: \`HF_ENDPOINT=${origin} hf download ${id}\`
- @huggingface/hub: \`hubUrl: "${origin}"\`; transformers.js: \`env.remoteHost = "${origin}"\`
${ggufLines}
- MCP (Streamable HTTP): \`${origin}/mcp\`

## Objects
- Descriptor: \`GET ${origin}/.well-known/model-hub.json\`; any object: \`GET ${origin}/api/v1/objects/{blake3:…}\` (BLAKE3 of the bytes equals the address).
- Source health: \`GET ${origin}/api/hub/health\`. Machine description: \`${origin}/openapi.json\`. Docs index: \`${origin}/llms.txt\`.

## Sections
- \`GET ${origin}/models\`, \`/registry\`, \`/spaces\`, \`/buckets\`, \`/docs\` with \`Accept: application/json\` → a SectionDescriptor: inventory, catalog address, and runnable requests to list, open and fetch.
- Docs: \`${origin}/docs/sources.md\` (how a source is chosen, \`/via/\`, health), \`${origin}/docs/verification.md\` (sha256sum -c, BLAKE3 objects, the archive chain).
- Agent card: \`${origin}/.well-known/agent-card.json\`. People: \`${origin}/models/\` and \`${origin}/health\`.

Reads need no token and work from any origin; an Authorization header on a read is dropped. Inference is out of scope.

${BRIEF_CANARY}
`;
}

/** The OCI repository name of a model ({@link ociName}, as the model page writes it). */
function ollamaName(id: string): string {
  const [owner = '', name = ''] = id.split('/');
  return ociName(owner, name);
}
