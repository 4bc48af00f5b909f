import net from 'node:net';

/**
 * A free TCP port on 127.0.0.1 for a test's own server (nginx, Prometheus, a hub child process), asked of the kernel
 * by listening on port 0 and closing again. Below `below` when given (a caller that also uses the next ports up).
 */
export async function freePort(below = 65536): Promise<number> {
  for (;;) {
    const s = net.createServer();
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(0, '127.0.0.1', () => resolve());
    });
    const port = (s.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => s.close(() => resolve()));
    if (port < below) return port;
  }
}
