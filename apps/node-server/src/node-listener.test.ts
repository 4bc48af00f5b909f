import http, { type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { type CoreDeps, createHub, type HubResponse, json, type Route } from '@hub/core-index';
import { createTestHub } from '@hub/core-index/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubListener, TurnWriter } from './node-listener.js';

// node-server's listener writes the answers made in one turn of the event loop together at its end (TurnWriter): every
// request is still answered, in order on a connection, and an answer Node cannot write gets a 500 without stopping the
// others.

describe('TurnWriter', () => {
  it('writes the answers of one turn at its end, in the order they were made', async () => {
    const written: string[] = [];
    const fake = (name: string) =>
      ({
        headersSent: false,
        writeHead: () => written.push(`${name}:head`),
        end: () => written.push(`${name}:end`),
      }) as unknown as ServerResponse;
    const turn = new TurnWriter();
    const answer: HubResponse = { status: 200, headers: {}, body: null };
    turn.write(fake('a'), answer);
    turn.write(fake('b'), answer);
    turn.write(fake('c'), answer);
    expect(written).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(written).toEqual(['a:head', 'a:end', 'b:head', 'b:end', 'c:head', 'c:end']);
  });

  it('holds at most 32 answers: a turn that makes more writes them as it goes', async () => {
    let ended = 0;
    const fake = { headersSent: false, writeHead: () => {}, end: () => ended++ } as unknown as ServerResponse;
    const turn = new TurnWriter();
    const answer: HubResponse = { status: 200, headers: {}, body: null };
    for (let k = 0; k < 31; k++) turn.write(fake, answer);
    expect(ended).toBe(0);
    turn.write(fake, answer);
    expect(ended).toBe(32);
    turn.write(fake, answer);
    expect(ended).toBe(32);
    await new Promise((r) => setImmediate(r));
    expect(ended).toBe(33);
  });
});

describe('hubListener over real HTTP', () => {
  let server: http.Server;
  let port = 0;
  beforeAll(async () => {
    const t = await createTestHub();
    const base = { rules: 'read', errors: 'hub', group: 'discovery', cache: 60 } as const;
    const routes: Route<CoreDeps>[] = [
      { ...base, method: 'GET', path: '/now/:n', summary: 'at once', handler: (ctx) => json(200, { n: ctx.params.n }) },
      {
        ...base,
        method: 'GET',
        path: '/later/:n',
        summary: 'later',
        handler: async (ctx) => {
          await new Promise((r) => setTimeout(r, 20));
          return json(200, { n: ctx.params.n });
        },
      },
      // a header value Node refuses to write (a line break): the answer cannot be written as made
      { ...base, method: 'GET', path: '/bad', summary: 'unwritable', handler: () => json(200, {}, { 'x-bad': 'a\nb' }) },
    ];
    server = http.createServer(hubListener(createHub(t.deps, routes), () => false));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('answers many requests at once, each its own answer', async () => {
    const paths = Array.from({ length: 40 }, (_, k) => (k % 3 ? `/now/${k}` : `/later/${k}`));
    const bodies = await Promise.all(paths.map(async (p) => (await fetch(`http://127.0.0.1:${port}${p}`)).json()));
    expect(bodies).toEqual(paths.map((p) => ({ n: p.split('/')[2] })));
  });

  it('keeps the order of pipelined requests on one connection, a slow answer included', async () => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    socket.on('data', (d) => {
      got += d.toString('latin1');
    });
    const ask = (p: string) => `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
    socket.write(ask('/now/1') + ask('/later/2') + ask('/now/3') + ask('/bad') + ask('/now/5'));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only got: ${got}`)), 5000);
      const check = () => {
        if ((got.match(/HTTP\/1\.1 /g) ?? []).length >= 5 || got.includes('"n":"5"')) {
          clearTimeout(timer);
          resolve();
        } else setTimeout(check, 10);
      };
      check();
    });
    socket.destroy();
    const statuses = [...got.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]);
    const order = [...got.matchAll(/\{"n":"(\d)"\}|Internal error/g)].map((m) => m[1] ?? 'error');
    expect(statuses).toEqual(['200', '200', '200', '500', '200']);
    expect(order).toEqual(['1', '2', '3', 'error', '5']);
  });
});
