export { DEMO_BUCKET, seedBuckets } from './buckets.js';
export { DEMO_DATE, DEMO_SOURCE, demoSource, demoTreeDir, seedDemo } from './demo.js';
export { buildFromDir, type FromDirOptions, type FromDirSource } from './from-dir.js';
export { sha256File } from './hash-file.js';
export { type StaticMirror, startStaticMirror } from './mirror.js';
export { type MirrorFolderServer, serveMirrorFolder } from './mirror-folder.js';
export { type RawAnswer, rawHttp } from './raw-http.js';
export { BUNDLED_SPACES, bundledSpacesDir, readSpaceDir, SpaceDirError, seedSpaces } from './spaces.js';
export { tempDirs } from './temp-dirs.js';
