import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '@hub/node-toolkit/testing';

/** The built `hub` (dist/cli.js): the tests that run it as its own process skip without it. */
export const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** A `hub serve` running as its own process (the built CLI), as an operator starts it. */
export interface HubProcess {
  child: ChildProcess;
  port: number;
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** its standard output and error as they came (empty with `quiet`) */
  out: string[];
  /**
   * Stop it with `signal` (SIGTERM by default) and wait for its exit; a SIGTERM it has not obeyed within 10 s is left
   * (the test's own timeout names it). Nothing when it has exited already.
   */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface HubProcessOptions {
  /** what follows `serve --port PORT` (the data folder, the config, `--workers`, …) */
  args: string[];
  /** the port (default: a free one) */
  port?: number;
  /** ready when this text shows in its output (default: when `readyPath` answers 2xx) */
  ready?: string;
  /** the path asked until it answers 2xx (default `/-/ready`) */
  readyPath?: string;
  /** added to this process's environment */
  env?: Record<string, string>;
  /** Node's own options, before the CLI (`--import`, …) */
  node?: string[];
  /** its output is not kept (it goes nowhere) */
  quiet?: boolean;
  /** how long it may take to be ready (default 60 s) */
  readyMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/**
 * The `hub serve` processes of one test file: `start` spawns one and resolves once it is ready (throwing with its
 * output when it exits or is not ready in time); every one still running is stopped after the file's tests.
 * `afterAll` is vitest's (as `tempDirs` takes it).
 */
export function hubProcesses(
  afterAll: (fn: () => Promise<void>, timeout?: number) => void,
): (options: HubProcessOptions) => Promise<HubProcess> {
  const started: HubProcess[] = [];
  afterAll(async () => {
    await Promise.all(started.map((p) => p.stop()));
  }, 30_000);
  return async (options) => {
    const port = options.port ?? (await freePort());
    const out: string[] = [];
    const child = spawn(process.execPath, [...(options.node ?? []), CLI, 'serve', '--port', String(port), ...options.args], {
      env: { ...process.env, ...options.env },
      stdio: ['ignore', options.quiet ? 'ignore' : 'pipe', options.quiet ? 'ignore' : 'pipe'],
    });
    child.stdout?.on('data', (c: Buffer) => out.push(String(c)));
    child.stderr?.on('data', (c: Buffer) => out.push(String(c)));
    const url = `http://127.0.0.1:${port}`;
    const hub: HubProcess = {
      child,
      port,
      url,
      out,
      async stop(signal = 'SIGTERM') {
        if (exited(child)) return;
        const gone = new Promise((r) => child.once('exit', r));
        child.kill(signal);
        await Promise.race([gone, sleep(10_000)]);
      },
    };
    started.push(hub);
    const until = Date.now() + (options.readyMs ?? 60_000);
    for (;;) {
      const ready = options.ready
        ? out.join('').includes(options.ready)
        : await fetch(`${url}${options.readyPath ?? '/-/ready'}`)
            .then((r) => r.ok)
            .catch(() => false);
      if (ready) return hub;
      if (exited(child) || Date.now() > until) {
        await hub.stop();
        throw new Error(`hub serve ${options.args.join(' ')} did not start:\n${out.join('')}`);
      }
      await sleep(50);
    }
  };
}
