export { loadTrust, type SigningConfig, type Trust } from './trust.js';
export { SIGNATURE_FILE, verifyModelSignature } from './verify.js';
