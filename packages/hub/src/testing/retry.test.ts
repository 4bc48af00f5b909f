import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { withRetries } from './retry.js';

describe('withRetries: a test client tries a request again only after a network error', () => {
  it('a connection reset before any answer is tried again on a new connection, and the answer comes back', async () => {
    let seen = 0;
    const server = http.createServer((req, res) => {
      seen++;
      if (seen === 1) {
        req.socket.destroy(); // no answer at all: fetch fails with a network error
        return;
      }
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const res = await withRetries(() => fetch(url), [10]);
      expect([res.status, await res.text(), seen]).toEqual([200, 'ok', 2]);
    } finally {
      server.close();
    }
  });

  it('gives up after its pauses, and never tries again an error that is not a network error', async () => {
    let tries = 0;
    const failing = () => {
      tries++;
      return Promise.reject(new TypeError('fetch failed'));
    };
    await expect(withRetries(failing, [1, 1])).rejects.toThrow('fetch failed');
    expect(tries).toBe(3);
    tries = 0;
    await expect(
      withRetries(() => {
        tries++;
        return Promise.reject(new Error('expected 200'));
      }),
    ).rejects.toThrow('expected 200');
    expect(tries).toBe(1);
  });
});
