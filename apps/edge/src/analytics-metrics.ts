import type { MetricEvent, Metrics } from '@hub/core-index';

/** The subset of a Workers Analytics Engine dataset binding the sink uses. */
export interface AnalyticsEngineDatasetLike {
  writeDataPoint(point: { blobs?: string[]; doubles?: number[]; indexes?: string[] }): void;
}

/**
 * The edge's metrics sink (design 10.2) when a Workers Analytics Engine dataset is bound as `HUB_METRICS`: one data
 * point per request, file with no live source, probe, index switch, publish, account write and MCP tool call. Every
 * point has the same columns, so one SQL query reads them all:
 *
 * - `index1`: the event (`request`, `no-live-source`, `probe`, …), the sampling key;
 * - `blob1..blob5`: route pattern, route group, method, source, outcome (reason, tool, snapshot day);
 * - `double1..double3`: status (or 1/0 for ok), seconds, bytes (or a count).
 *
 * Label values are the core's bounded ones: route patterns, groups, configured source names, outcome words.
 */
export function analyticsEngineMetrics(dataset: AnalyticsEngineDatasetLike): Metrics {
  const write = (event: string, blobs: [string, string, string, string, string], doubles: [number, number, number]) => {
    try {
      dataset.writeDataPoint({ indexes: [event], blobs, doubles });
    } catch {
      // Metrics never fail a request.
    }
  };
  return {
    emit(e: MetricEvent) {
      switch (e.type) {
        case 'request':
          write('request', [e.route, e.group, e.method, e.source ?? '', ''], [e.status, e.seconds, e.bytes ?? 0]);
          break;
        case 'no-live-source':
          write('no-live-source', ['', e.group, '', '', ''], [503, 0, 0]);
          break;
        case 'probe':
          write('probe', ['', '', '', e.source, e.reason], [e.ok ? 1 : 0, e.seconds, 0]);
          break;
        case 'index':
          write('index', ['', '', '', '', e.snapshot], [e.models, 0, e.files]);
          break;
        case 'publish':
        case 'account-write':
          write(e.type, ['', '', '', '', e.outcome], [1, 0, 0]);
          break;
        case 'mcp-tool':
          write('mcp-tool', ['', 'mcp', '', '', e.tool], [e.isError ? 0 : 1, 0, 0]);
          break;
        default:
          // redirects are in the request point (its source); restored probe state and the upstream run (not run at
          // the edge) are not written
          break;
      }
    },
  };
}
