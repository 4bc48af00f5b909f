import { packageConfig } from '../../tooling/tsup.package';

// The runtime-neutral entry (fetch only), and the Node file writer under ./node. Both write into dist/.
export default [
  packageConfig(['src/index.ts'], { clean: false }),
  packageConfig([], { entry: { 'node/index': 'src/node/index.ts' }, platform: 'node', target: 'node20', clean: false }),
];
