/**
 * `@hub/model-signing/node`: the trust loader alone (node:fs and node:crypto, no Sigstore library), for the config
 * check every command runs at start; the verifier itself is the package root, loaded only by the index run.
 */
export { loadTrust, type SigningConfig } from '../trust.js';
