export { ARCHIVE_LAYER, CHECKPOINT_LAYER } from './archive.js';
export { type BucketDeps, bucketRoutes, bucketState, MANIFEST_TYPES, referencedDigests } from './buckets/routes.js';
export { BucketStore } from './buckets/store.js';
export { BUSY, isUploadId, type UploadSessionStore, type UploadState } from './buckets/upload-store.js';
export { goTemplateProblem } from './go-template.js';
export { type RegistryRepositories, registryRepositories } from './repositories.js';
export { ociRoutes } from './routes.js';
export { repoTags } from './tags.js';
