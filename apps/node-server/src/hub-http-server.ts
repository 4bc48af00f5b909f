import http from 'node:http';
import type { Logger } from '@hub/core-index';
import type { HubConfigFile } from './config.js';

/**
 * The hub's `http.Server` around its listener: keep-alive, the header and request timeouts, and the cap on open
 * connections from one remote address (issue 19). Node checks the timeouts on `connectionsCheckingInterval` (its
 * default, 30 s, would stretch them). Not listening yet.
 */
export function hubHttpServer(
  listener: http.RequestListener,
  config: Pick<HubConfigFile, 'headersTimeoutSeconds' | 'requestTimeoutSeconds' | 'maxConnectionsPerAddress'>,
  log: Logger,
): http.Server {
  const server = http.createServer({ connectionsCheckingInterval: 1000 }, listener);
  server.keepAliveTimeout = 65_000;
  // Slow and abusive clients (issue 19): the whole header block within 20 s, the whole request within
  // 120 s, and at most `maxConnectionsPerAddress` open connections from one remote address.
  server.headersTimeout = config.headersTimeoutSeconds !== undefined ? config.headersTimeoutSeconds * 1000 : 20_000;
  server.requestTimeout = config.requestTimeoutSeconds !== undefined ? config.requestTimeoutSeconds * 1000 : 120_000;
  const perAddressCap = config.maxConnectionsPerAddress ?? 256;
  const openByAddress = new Map<string, number>();
  server.on('connection', (socket) => {
    const address = socket.remoteAddress ?? '';
    const open = (openByAddress.get(address) ?? 0) + 1;
    if (open > perAddressCap) {
      log.info({ address, open: open - 1 }, 'connection refused: too many open connections from one address');
      socket.destroy();
      return;
    }
    openByAddress.set(address, open);
    socket.once('close', () => {
      const left = (openByAddress.get(address) ?? 1) - 1;
      if (left <= 0) openByAddress.delete(address);
      else openByAddress.set(address, left);
    });
  });
  return server;
}
