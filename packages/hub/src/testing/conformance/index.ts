export { conformanceCases } from './cases.js';
export { compareReports, runConformance } from './runner.js';
export type {
  CaseExpectation,
  CaseRequest,
  CaseResponse,
  CaseResult,
  ConformanceCase,
  ConformanceFacts,
  ConformanceOptions,
  ConformanceReport,
  HeaderExpectation,
  Observation,
} from './types.js';
