import { bucketCases } from './cases-buckets.js';
import { coreCases } from './cases-core.js';
import { hfCases } from './cases-hf.js';
import { logCases } from './cases-log.js';
import { mcpAccountCases } from './cases-mcp-account.js';
import { ociCases } from './cases-oci.js';
import { siteCases } from './cases-site.js';
import { spaceCases } from './cases-spaces.js';
import type { ConformanceCase } from './types.js';

/**
 * The one list of HTTP cases both hosts must pass and answer identically. Written against the
 * bundled demo index (`demo/tiny-llama-2-GGUF`, `demo/tiny-bert-synthetic`) served from a byte
 * source named `demo-mirror`.
 */
export function conformanceCases(): ConformanceCase[] {
  return [
    ...coreCases(),
    ...logCases(),
    ...siteCases(),
    ...hfCases(),
    ...ociCases(),
    ...mcpAccountCases(),
    ...spaceCases(),
    ...bucketCases(),
  ];
}
