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

/**
 * CNCF ModelPack (modelpack/model-spec `specs-go/v1/mediatype.go`, clients-2026.md 1.1): an OCI image
 * manifest with this `artifactType`, a model config, and raw (untarred) layers, so a layer digest is
 * the file's SHA-256 and blobs still redirect to a source.
 */
export const MODELPACK_ARTIFACT = 'application/vnd.cncf.model.manifest.v1+json';
export const MODELPACK_CONFIG = 'application/vnd.cncf.model.config.v1+json';
export const MODELPACK_WEIGHT = 'application/vnd.cncf.model.weight.v1.raw';
export const MODELPACK_WEIGHT_CONFIG = 'application/vnd.cncf.model.weight.config.v1.raw';
export const MODELPACK_DOC = 'application/vnd.cncf.model.doc.v1.raw';
export const MODELPACK_CODE = 'application/vnd.cncf.model.code.v1.raw';
/** The layer annotation that names the file's path in the model (ModelPack and Docker AI v0.2). */
export const FILEPATH = 'org.cncf.model.filepath';

/**
 * Docker Model Runner (docker/model-runner `pkg/distribution/types/config.go`, clients-2026.md 1.2).
 * The projector type is the one its code uses (`…ai.mmproj`), not the spec's `…gguf.v3.mmproj`.
 */
export const DOCKER_AI_CONFIG = 'application/vnd.docker.ai.model.config.v0.2+json';
export const DOCKER_AI_GGUF = 'application/vnd.docker.ai.gguf.v3';
export const DOCKER_AI_MMPROJ = 'application/vnd.docker.ai.mmproj';
export const DOCKER_AI_LICENSE = 'application/vnd.docker.ai.license';
export const DOCKER_AI_TEMPLATE = 'application/vnd.docker.ai.chat.template.jinja';
