export { BAD_HOSTS, type BadInputAnswer, type BadInputRequest, checkBadInput } from './bad-input.js';
export { type ConformanceOptions, type ConformanceReport, compareReports, conformanceCases, runConformance } from './conformance/index.js';
export { withRetries } from './retry.js';
export { composedHub, createComposedTestHub } from './test-hub.js';
