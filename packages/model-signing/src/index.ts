export { type ReadBytes, verifyFromBytes } from './bytes.js';
export { verifyModelSignature } from './verify.js';
