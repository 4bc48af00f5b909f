import { packageConfig } from '../../tooling/tsup.package';

// The runtime-neutral entries, and the Node-only filesystem store under ./node. Both write into dist/, so neither cleans it.
export default [
  packageConfig(['src/index.ts', 'src/testing/index.ts'], { clean: false }),
  packageConfig([], { entry: { 'node/index': 'src/node/index.ts' }, platform: 'node', target: 'node20', clean: false }),
];
