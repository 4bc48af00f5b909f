import { describe, expect, it } from 'vitest';
import { HostSettingsError, hostPolicyFrom } from './host-settings.js';

describe('hostPolicyFrom: the host settings of both hosts, read one way', () => {
  it('keeps a usable baseUrl without its trailing slashes, and refuses one that cannot be an origin', () => {
    expect(hostPolicyFrom({ listenHost: '0.0.0.0', baseUrl: 'https://models.example.org//' })).toEqual({
      listenHost: '0.0.0.0',
      baseUrl: 'https://models.example.org',
    });
    expect(hostPolicyFrom({ listenHost: '0.0.0.0', baseUrl: '' })).toEqual({ listenHost: '0.0.0.0' });
    for (const bad of [
      'models.example.org',
      'ftp://m.example',
      'https://m.example/?q=1',
      'https://m.example/#x',
      'https://u:p@m.example',
      42,
    ]) {
      expect(() => hostPolicyFrom({ listenHost: '0.0.0.0', baseUrl: bad }), String(bad)).toThrow(HostSettingsError);
      expect(() => hostPolicyFrom({ listenHost: '0.0.0.0', baseUrl: bad })).toThrow(/^baseUrl must be an absolute http\(s\) URL/);
    }
  });

  it('reads a host list as a list, a JSON list in text or a comma list, and refuses anything else', () => {
    const hosts = (allowedHosts: unknown) => hostPolicyFrom({ listenHost: '127.0.0.1', allowedHosts }).allowedHosts;
    expect(hosts(['hub.lan', ' .example.org '])).toEqual(['hub.lan', '.example.org']);
    expect(hosts('["hub.lan", ".example.org"]')).toEqual(['hub.lan', '.example.org']);
    expect(hosts('hub.lan, .example.org,')).toEqual(['hub.lan', '.example.org']);
    expect(hosts(undefined)).toBeUndefined();
    for (const bad of [{ a: 1 }, [1], '["hub.lan"', true])
      expect(() => hosts(bad), JSON.stringify(bad)).toThrow(/^allowedHosts must be a list/);
  });

  it('reads a boolean one way: true, false and their text; anything else is refused, not guessed', () => {
    const trust = (trustProxy: unknown) => hostPolicyFrom({ listenHost: '0.0.0.0', trustProxy }).trustProxy ?? false;
    for (const yes of [true, 'true', '1']) expect(trust(yes)).toBe(true);
    for (const no of [false, 'false', '0', '', undefined]) expect(trust(no)).toBe(false);
    for (const bad of ['yes', 'TRUE', 1, 'on']) expect(() => trust(bad), String(bad)).toThrow(/^trustProxy must be true or false$/);
  });
});
