/**
 * The hash pass of `hub index verify` resumable: each fan-out folder, once hashed, is one line of
 * `DATA/verify-progress.jsonl` (its object count, faults and their addresses). A run killed part way and started
 * again with `--resume` takes those folders' results instead of reading them again; a run without it starts the file
 * afresh, and a finished run removes it. A line cut short by a kill is not taken (that folder is hashed again). What
 * a resumed run does not see: an object damaged, in a folder already hashed, after that folder was hashed (a run that
 * was not killed does not see it either once it has passed the folder).
 */
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { HashResult } from './verify-jobs.js';

export const VERIFY_PROGRESS_FILE = 'verify-progress.jsonl';
const FORMAT = 'hub.verify-progress/v1';

export interface HashProgress {
  /** folders an earlier run finished (only with resume) */
  done: Map<string, HashResult>;
  record(folder: string, r: HashResult): void;
  /** the run finished: nothing to resume */
  finish(): void;
}

export function hashProgress(file: string, resume: boolean): HashProgress {
  const done = new Map<string, HashResult>();
  let lines: string[] = [];
  if (resume) {
    try {
      lines = readFileSync(file, 'utf8').split('\n');
    } catch {
      lines = [];
    }
  }
  if (lines[0] === JSON.stringify({ format: FORMAT })) {
    for (const line of lines.slice(1)) {
      try {
        const v = JSON.parse(line) as { folder: string } & HashResult;
        if (/^[0-9a-f]{2}$/.test(v.folder) && Number.isInteger(v.objects) && Array.isArray(v.faults) && Array.isArray(v.bad))
          done.set(v.folder, { objects: v.objects, faults: v.faults.map(String), bad: v.bad.map(String) });
      } catch {
        // a line cut short: its folder is hashed again
      }
    }
  } else writeFileSync(file, `${JSON.stringify({ format: FORMAT })}\n`);
  return {
    done,
    record: (folder, r) => appendFileSync(file, `${JSON.stringify({ folder, ...r })}\n`),
    finish: () => rmSync(file, { force: true }),
  };
}
