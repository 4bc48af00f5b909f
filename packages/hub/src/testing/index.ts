export { request, type TestResponse } from './request.js';
export {
  compareReports,
  conformanceCases,
  runConformance,
  type CaseExpectation,
  type CaseRequest,
  type CaseResponse,
  type CaseResult,
  type ConformanceCase,
  type ConformanceFacts,
  type ConformanceOptions,
  type ConformanceReport,
  type HeaderExpectation,
  type Observation,
} from './conformance/index.js';
