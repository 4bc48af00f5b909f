export { seedBuckets } from './buckets.js';
export { DEMO_SOURCE, demoSource, demoTreeDir, seedDemo } from './demo.js';
export { type DemoMirror, startDemoMirror } from './demo-mirror.js';
export { buildFromDir, ChangeFeedError, changeFeedPaths, treeLayoutProblem } from './from-dir.js';
export { type MirrorFolderServer, serveMirrorFolder } from './mirror-folder.js';
export { bundledSpacesDir, readSpaceDir, seedSpaces } from './spaces.js';
