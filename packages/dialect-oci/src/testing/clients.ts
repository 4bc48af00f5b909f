import { DOCKER_MANIFEST, OCI_MANIFEST } from '../media-types.js';

/**
 * What each OCI client sends for a manifest (docs/reference/clients-2026.md 1.11 and section 4, read from their
 * source), shared by the dialect's tests. containerd's resolver (also Docker Model Runner's) sends the manifest list
 * types plus both manifests.
 */
export const CONTAINERD_ACCEPT = [
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
  '*/*',
].join(', ');

export const CLIENTS = {
  ollama: { accept: DOCKER_MANIFEST, 'user-agent': 'ollama/0.34.2 (amd64 linux) Go/go1.24.0' },
  dmr: { accept: CONTAINERD_ACCEPT, 'user-agent': 'model-distribution' },
  modctl: { accept: OCI_MANIFEST, 'user-agent': 'modctl/v0.1.0' },
  containerd: { accept: CONTAINERD_ACCEPT, 'user-agent': 'containerd/1.6.20' },
  llamaEraA: { accept: 'application/json', 'user-agent': 'llama-cpp' },
};
