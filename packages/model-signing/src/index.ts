export { loadTrust, type SigningConfig } from './trust.js';
export { verifyModelSignature } from './verify.js';
