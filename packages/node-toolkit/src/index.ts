export { seedBuckets } from './buckets.js';
export { DEMO_SOURCE, demoSource, demoTreeDir, seedDemo } from './demo.js';
export { type StaticMirror, startStaticMirror } from './demo-mirror.js';
export { freePort } from './free-port.js';
export { buildFromDir, treeLayoutProblem } from './from-dir.js';
export { type MirrorFolderServer, serveMirrorFolder } from './mirror-folder.js';
export { rawHttp } from './raw-http.js';
export { bundledSpacesDir, readSpaceDir, seedSpaces } from './spaces.js';
export { tempDirs } from './temp-dirs.js';
