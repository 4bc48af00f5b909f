export { request, type TestResponse } from '@hub/core-index/testing';
export {
  BAD_HOSTS,
  type BadInputAnswer,
  type BadInputRequest,
  type BadInputRoute,
  badInputProblem,
  checkBadInput,
  fillPattern,
} from './bad-input.js';
export {
  type CaseExpectation,
  type CaseRequest,
  type CaseResponse,
  type CaseResult,
  type ConformanceCase,
  type ConformanceFacts,
  type ConformanceOptions,
  type ConformanceReport,
  compareReports,
  conformanceCases,
  type HeaderExpectation,
  type Observation,
  runConformance,
} from './conformance/index.js';
export { composedHub, createComposedTestHub } from './test-hub.js';
