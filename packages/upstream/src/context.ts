import type { Logger, ObjectStore } from '@hub/core-index';
import type { Clock, UpstreamClient } from './client.js';
import type { ModelWork } from './model.js';
import type { WorkRef } from './state.js';
import type { BuildProgress, SkippedModel, UpstreamBuildOptions } from './types.js';
import type { Yesterday } from './yesterday.js';

/** Phase state shared by the run's steps. */
export interface RunContext {
  options: UpstreamBuildOptions;
  clock: Clock;
  log: Logger;
  objects: ObjectStore;
  upstream: string;
  top: number;
  date: string;
  client: UpstreamClient;
  work: WorkRef;
  yesterday: Yesterday;
  progress: (p: BuildProgress) => void;
}

export interface ModelsOutcome {
  results: Array<ModelWork | undefined>;
  transient: SkippedModel[];
  kept: number;
  keptByReason: Record<string, number>;
  resumed: number;
  reused: number;
  downloaded: number;
}
