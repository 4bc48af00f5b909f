export {
  ARCHIVE_ARTIFACT_TYPE,
  ARCHIVE_LAYER,
  type ArchiveRepository,
  archiveAnswer,
  archiveRepository,
  CHECKPOINT_LAYER,
} from './archive.js';
export {
  BUCKET_REQUEST_MAX_BYTES,
  bucketRoutes,
  bucketState,
  DEFAULT_BUCKET_MAX_BYTES,
  MANIFEST_TYPES,
  referencedDigests,
} from './buckets/routes.js';
export { BLOB_KIND, BUCKETS_KIND, BUCKETS_REF, type BucketEntry, BucketStore, type BucketsCatalog } from './buckets/store.js';
export { goTemplateProblem } from './go-template.js';
export { buildRepository, type Descriptor, type Prepared, parameterSize, type Repository, repository, type Shape } from './manifests.js';
export * from './media-types.js';
export { catalogNames, dashAliases, findModel, invalidName } from './names.js';
export { type RegistryRepositories, registryRepositories } from './repositories.js';
export { ociRoutes, wantsOci } from './routes.js';
export { type RepoTags, repoTags, TAG_PATTERN, type Target } from './tags.js';
