import type { Server } from 'node:net';

/** The default bound address: loopback, so a hub started on a laptop is not on the network (design 10.1). */
export const DEFAULT_HOST = '127.0.0.1';

/** Where a server actually listens, as the operating system reports it. */
export interface Bound {
  /** the bound address (`127.0.0.1`, `0.0.0.0`, `::`, `192.168.1.5`) */
  address: string;
  port: number;
  /** `address:port` as written in a URL authority (IPv6 in brackets): what the start-up line prints */
  listening: string;
  /** a URL this machine reaches the server by (a wildcard address is reached over loopback) */
  url: string;
}

function authority(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

/** The bound address of a listening server, and a local URL for it. */
export function boundAddress(server: Server): Bound {
  const a = server.address();
  if (!a || typeof a === 'string') throw new Error('the server is not listening on a TCP port');
  const local = a.address === '0.0.0.0' ? '127.0.0.1' : a.address === '::' ? '::1' : a.address;
  return { address: a.address, port: a.port, listening: authority(a.address, a.port), url: `http://${authority(local, a.port)}` };
}

/**
 * Listen on `host:port` (one small function for every listener node-server opens) and report the address bound.
 * A busy port or an address this machine does not have rejects with the system's error.
 */
export async function listenOn(server: Server, port: number, host: string): Promise<Bound> {
  await new Promise<void>((resolve, reject) => {
    const onError = (e: Error) => reject(e);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  return boundAddress(server);
}
