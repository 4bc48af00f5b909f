import { type Address, type BuildModelInput, type Logger, type ObjectStore, putJson } from '@hub/core-index';
import type { ModelWork, SkipReason } from './model.js';

/** The run's state in the object store: the work ref (`build-<date>`) and the finished models it names. */

export const BUILD_RESULT_KIND = 'model-hub.build-result';
export const WORK_FORMAT = 'svc.model-hub.build-work/v1';

interface WorkState {
  format: typeof WORK_FORMAT;
  upstream: string;
  top: number;
  listing: string | null;
  /** `id@revision` → address of a build-result object */
  done: Record<string, string>;
  finished: string | null;
}

type StoredResult = { kind: typeof BUILD_RESULT_KIND; key: string } & (
  | { status: 'ok'; model: BuildModelInput }
  | { status: 'skipped'; id: string; reason: SkipReason; detail: string }
);

const decoder = new TextDecoder();

export async function readJson<T>(objects: ObjectStore, address: string): Promise<T | undefined> {
  const s = await objects.get(address as Address);
  if (!s) return undefined;
  try {
    return JSON.parse(decoder.decode(s.bytes)) as T;
  } catch {
    return undefined;
  }
}

export function workRefName(date: string): string {
  return `build-${date}`;
}

/** Skip reasons that come from the upstream's data, not from a failure: kept as finished work. */
export const FINAL_REASONS = new Set<SkipReason>([
  'empty',
  'file-over-cap',
  'size-mismatch',
  'bad-lfs-oid',
  'not-found',
  'no-revision',
  'gated',
  'disabled',
]);

/** The run's work ref (`build-<date>`): finished models by `id@revision`, so a killed run resumes. */
export class WorkRef {
  state: WorkState;
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly objects: ObjectStore,
    readonly name: string,
    state: WorkState,
  ) {
    this.state = state;
  }

  static async open(objects: ObjectStore, date: string, upstream: string, top: number, fresh: boolean, log: Logger): Promise<WorkRef> {
    const name = workRefName(date);
    let state: WorkState = { format: WORK_FORMAT, upstream, top, listing: null, done: {}, finished: null };
    const raw = fresh ? undefined : await objects.readRef(name);
    if (raw) {
      try {
        const s = JSON.parse(raw) as WorkState;
        if (s.format === WORK_FORMAT && s.upstream === upstream && s.top === top && !s.finished) {
          state = { ...s, done: s.done ?? {} };
          log.info({ event: 'resume', ref: name, finished: Object.keys(state.done).length }, 'resuming an interrupted run');
        } else if (s.format === WORK_FORMAT && s.finished) {
          // A finished run of the same day: keep its per-model results, list again.
          state = { ...state, done: s.upstream === upstream ? (s.done ?? {}) : {} };
        }
      } catch {
        log.warn({ event: 'work-ref-unreadable', ref: name }, 'ignoring an unreadable work ref');
      }
    }
    return new WorkRef(objects, name, state);
  }

  save(): Promise<void> {
    const snapshot = JSON.stringify(this.state);
    this.writing = this.writing.then(() => this.objects.writeRef(this.name, snapshot));
    return this.writing;
  }

  flush(): Promise<void> {
    return this.writing;
  }

  async finished(key: string): Promise<StoredResult | undefined> {
    const address = this.state.done[key];
    const stored = address ? await readJson<StoredResult>(this.objects, address) : undefined;
    return stored && stored.kind === BUILD_RESULT_KIND && stored.key === key ? stored : undefined;
  }

  async record(work: ModelWork, key: string): Promise<void> {
    const record: StoredResult =
      work.status === 'ok'
        ? { kind: BUILD_RESULT_KIND, key, status: 'ok', model: work.model }
        : { kind: BUILD_RESULT_KIND, key, status: 'skipped', id: work.id, reason: work.reason, detail: work.detail };
    this.state.done[key] = await putJson(this.objects, BUILD_RESULT_KIND, record);
    await this.save();
  }
}
