import { type ChildProcess, execFile, spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import path from 'node:path';

/**
 * Flushes of a whole filesystem (syncfs(2), which Node does not bind) through coreutils' `sync -f`, asked of one small
 * shell kept for the process instead of a new child per flush (docs/decisions/scale-and-speed.md "One shell for the
 * filesystem flushes"). A build flushes twice per batch of objects: a child forked from a process of hundreds of MB
 * cost 8–15 ms of its CPU each (the fork copies its page tables; more as the heap grows) against 0.3 ms for a line
 * written to the shell, which forks `sync` from its own few MB. The shell reads one folder a line, flushes it and
 * answers its exit status a line; the answers come in the order asked. It keeps the process alive only while a flush
 * is asked, and ends when the process does (its input closes). A folder whose name holds a line break, or a shell that
 * cannot be started or has died, is flushed by a child of its own as before.
 */

interface Waiting {
  resolve(): void;
  reject(e: Error): void;
}

let shell: { child: ChildProcess; waiting: Waiting[] } | undefined;

const LOOP = 'while IFS= read -r d; do sync -f -- "$d" </dev/null; echo "$?"; done';

function startShell(): typeof shell {
  let child: ChildProcess;
  try {
    child = spawn('sh', ['-c', LOOP], { stdio: ['pipe', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
  const kept = { child, waiting: [] as Waiting[] };
  let buffered = '';
  const fail = (e: Error) => {
    if (shell === kept) shell = undefined;
    for (const w of kept.waiting.splice(0)) w.reject(e);
  };
  child.on('error', fail);
  child.on('exit', () => fail(new Error('the filesystem flush helper ended')));
  child.stdin?.on('error', () => {}); // a write after it ended: its 'exit' rejects what waits
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
      const status = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      const w = kept.waiting.shift();
      if (kept.waiting.length === 0) idle(kept.child, true);
      if (status === '0') w?.resolve();
      else w?.reject(new Error(`sync -f exited with ${status.slice(0, 10)}`));
    }
  });
  idle(child, true);
  return kept;
}

/** Whether the shell may keep the process alive: only while a flush waits on it. */
function idle(child: ChildProcess, yes: boolean): void {
  for (const s of [child.stdin, child.stdout] as Array<Socket | null>) (yes ? s?.unref : s?.ref)?.call(s);
  if (yes) child.unref();
  else child.ref();
}

/** `sync -f dir` in a child of its own (a folder name the line protocol cannot carry, or no shell). */
function syncFsAlone(dir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('sync', ['-f', dir], { timeout: 600_000 }, (e) => (e ? reject(e) : resolve()));
  });
}

/** Flush the whole filesystem that holds `dir`; rejects when `sync -f` fails there (or is not there). */
export function syncFs(folder: string): Promise<void> {
  // absolute: the shell keeps the folder it started in, whatever the process changes to since
  const dir = path.resolve(folder);
  if (dir.includes('\n') || dir.includes('\r')) return syncFsAlone(dir);
  shell ??= startShell();
  const kept = shell;
  if (!kept?.child.stdin?.writable) {
    shell = undefined;
    return syncFsAlone(dir);
  }
  return new Promise<void>((resolve, reject) => {
    kept.waiting.push({ resolve, reject });
    if (kept.waiting.length === 1) idle(kept.child, false);
    kept.child.stdin?.write(`${dir}\n`);
  });
}
