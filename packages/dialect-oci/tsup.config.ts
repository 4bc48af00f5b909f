import { packageConfig } from '../../tooling/tsup.package';

export default packageConfig(['src/index.ts', 'src/testing/index.ts']);
