import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';

/**
 * A real nginx for tests (Debian's nginx-light): in the foreground with one process, its own config, prefix, pid,
 * error log and temp folders in `dir`, listening on 127.0.0.1 ports, and stopped by its own pid.
 */
export const NGINX = '/usr/sbin/nginx';

export interface TestNginx {
  /** The error log so far (for a failure message). */
  errors(): Promise<string>;
  stop(): Promise<void>;
}

/** Whether a TCP connection to `port` on loopback is accepted. */
function accepts(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

/**
 * Starts nginx on `dir` with `http` inside its `http { … }` block (after the common lines: no access log, the temp
 * paths in `dir`); resolves when every port of `ports` accepts a connection (20 s at most, then the error log is the
 * failure).
 */
export async function startNginx(dir: string, http: string, ports: number[], workerConnections = 64): Promise<TestNginx> {
  if (!existsSync(NGINX)) throw new Error(`${NGINX} is missing: apt-get install nginx-light`);
  const conf = `
daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections ${workerConnections}; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
${http}
}
`;
  await writeFile(`${dir}/nginx.conf`, conf);
  const child: ChildProcess = spawn(NGINX, ['-c', `${dir}/nginx.conf`, '-p', dir, '-e', `${dir}/error.log`], { stdio: 'ignore' });
  const errors = () => readFile(`${dir}/error.log`, 'utf8').catch(() => '');
  const stop = async () => {
    if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    // SIGQUIT: a graceful stop (open requests finish), at most 5 s
    process.kill(child.pid, 'SIGQUIT');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
  };
  const deadline = Date.now() + 20_000;
  for (const port of ports) {
    while (!(await accepts(port))) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`nginx did not listen on ${port}: ${await errors()}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { errors, stop };
}
