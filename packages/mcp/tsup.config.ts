import { packageConfig } from '../../tooling/tsup.package';

export default packageConfig(['src/index.ts']);
