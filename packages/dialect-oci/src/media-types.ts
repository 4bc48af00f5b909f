/** Media types of the OCI dialect (protocols.md sections 4.3 and 5). */
export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
export const DOCKER_CONFIG = 'application/vnd.docker.container.image.v1+json';
export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const OCI_CONFIG = 'application/vnd.oci.image.config.v1+json';

export const OLLAMA_MODEL = 'application/vnd.ollama.image.model';
export const OLLAMA_PROJECTOR = 'application/vnd.ollama.image.projector';
export const OLLAMA_TEMPLATE = 'application/vnd.ollama.image.template';
export const OLLAMA_PARAMS = 'application/vnd.ollama.image.params';
export const OLLAMA_LICENSE = 'application/vnd.ollama.image.license';

/** Layers of non-GGUF models: raw files, never tar. */
export const FILE_LAYER = 'application/octet-stream';

/** The annotation that names a layer's file (oras writes the file under this name). */
export const TITLE = 'org.opencontainers.image.title';

export const API_VERSION_HEADER = 'docker-distribution-api-version';
export const API_VERSION = 'registry/2.0';
