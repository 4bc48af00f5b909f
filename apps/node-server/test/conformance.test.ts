import { createTestIdentityProvider } from '@hub/account/testing';
import { type ConformanceReport, runConformance } from '@hub/hub/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';

/**
 * The conformance suite (packages/hub/src/testing/conformance) against node-server over real HTTP,
 * on the bundled demo index. apps/edge/test/conformance.test.ts runs the same cases against the edge
 * under workerd and compares the two hosts' answers.
 */
const REGISTRY_TOKEN = 'conformance-registry-token';
const PUBLISHER_TOKEN = 'conformance-publisher-token';

describe('conformance: node-server with sign-in keys', () => {
  let hub: TestHub;
  let report: ConformanceReport;
  beforeAll(async () => {
    const idp = await createTestIdentityProvider();
    hub = await startTestHub({
      config: {
        account: { publicKey: idp.publicKeyPem, siteOrigin: 'https://site.example' },
        registryTokens: [REGISTRY_TOKEN],
        publisherTokens: [PUBLISHER_TOKEN],
      },
    });
    report = await runConformance(hub.url, {
      role: 'server',
      accountsConfigured: true,
      mirrorUrl: hub.mirrorUrl,
      registryToken: REGISTRY_TOKEN,
      publisherToken: PUBLISHER_TOKEN,
    });
  });
  afterAll(async () => {
    await hub?.close();
  });

  it('passes every case', () => {
    expect(report.failures).toEqual([]);
    expect(report.results.length).toBeGreaterThan(80);
  });
});

describe('conformance: node-server without sign-in keys', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterAll(async () => {
    await hub?.close();
  });

  it('answers the account cases with 503 and configured: false', async () => {
    const report = await runConformance(hub.url, {
      role: 'server',
      accountsConfigured: false,
      mirrorUrl: hub.mirrorUrl,
      filter: (c) => c.area === 'account',
    });
    expect(report.failures).toEqual([]);
    expect(report.results.length).toBeGreaterThanOrEqual(5);
  });
});
