export { verifyModelSignature } from './verify.js';
