import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../src/api/url-policy.js';
import { describeTarget } from '../../src/report/report-writers.js';

/** What the check said before its fast path: ipaddr.js for every host but localhost. */
function byIpaddr(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (host === 'localhost') return true;
  return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback';
}

describe('isLoopbackHost', () => {
  it('answers the usual loopback addresses without ipaddr.js exactly as ipaddr.js does, and the rest through it', () => {
    const hosts = [
      '127.0.0.1',
      '127.255.255.255',
      '127.1.2.3',
      '127.256.0.1',
      '127.0.0.01',
      '127.09.0.1',
      '127.000.000.001',
      '127.1',
      '0x7f.0.0.1',
      '128.0.0.1',
      '126.255.255.255',
      '10.0.0.1',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      '[::ffff:7f00:1]',
      '::2',
      'localhost',
      'LOCALHOST',
      'localhost.evil.com',
      '127.0.0.1.evil.com',
      'exam.example.com',
      '',
    ];
    for (const host of hosts) expect(isLoopbackHost(host), host).toBe(byIpaddr(host));
  });
});

describe('a base URL as shown (trial31 F08)', () => {
  it('never with its user info, query or fragment: a memory or journal of an older examctl may hold them', () => {
    for (const baseUrl of [
      'https://u:pw-SECRET@h.example/t?api_key=SECRET#SECRET',
      'https://u:pw@SECRET@h.example/t/',
      'https://u:SECRET@h .example/t?k=SECRET',
    ]) {
      const shown = describeTarget({ kind: 'remote', baseUrl });
      expect(shown).toMatch(/^remote https:\/\/h ?\.example\/t$/);
      expect(shown).not.toContain('SECRET');
    }
  });
});
