export { type Coverage, compareWithIndex, DEFAULT_EXCLUSIONS, type IndexedFile } from './compare.js';
export { keyHint, SignatureError, type SignedContent, type SigningMethod, verifyEnvelope } from './envelope.js';
export { parseStatement, type SignedManifest, StatementError } from './statement.js';
export { loadTrust, PINNED_TRUSTED_ROOT, type SigningConfig, type Trust } from './trust.js';
export { SIGNATURE_FILE, verifyModelSignature } from './verify.js';
