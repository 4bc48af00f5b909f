export { verifyFromBytes } from './bytes.js';
export { verifyModelSignature } from './verify.js';
