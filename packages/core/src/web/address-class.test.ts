import { describe, expect, it } from 'vitest';
import { classifyAddress, isGlobalUnicastAddress } from './address-class.js';

describe('classifyAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '240.0.0.1',
    '192.0.2.1',
    '198.18.0.1',
    '::',
    '::1',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.1.2.3',
    '::ffff:169.254.169.254',
    '64:ff9b::7f00:1',
    '64:ff9b::a00:1',
    '64:ff9b:1::808:808',
    '2002:7f00:1::',
    '2002:c0a8:101::1',
    '2001:db8::1',
    '::7f00:1',
    '100::1',
    'not-an-address',
    '0x7f000001',
    '127.1',
  ])('%s is not global', (address) => {
    expect(isGlobalUnicastAddress(address)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '93.184.216.34',
    '1.1.1.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is global', (address) => {
    expect(isGlobalUnicastAddress(address)).toBe(true);
  });

  it('names the IPv4 address an IPv6 form carries', () => {
    expect(classifyAddress('::ffff:127.0.0.1')).toMatchObject({
      global: false,
      range: 'ipv4Mapped',
      embedded: '127.0.0.1',
    });
    expect(classifyAddress('64:ff9b::7f00:1')).toMatchObject({ embedded: '127.0.0.1' });
    expect(classifyAddress('2002:a00:1::')).toMatchObject({ global: false, embedded: '10.0.0.1' });
  });

  it('checks both addresses of a Teredo form', () => {
    // Server 8.8.8.8, client 127.0.0.1 (stored inverted: 0x80ff:fffe).
    expect(classifyAddress('2001:0:808:808::80ff:fffe')).toMatchObject({
      global: false,
      range: 'teredo',
      embedded: '127.0.0.1',
    });
    // Server 10.0.0.1.
    expect(isGlobalUnicastAddress('2001:0:a00:1::f7f7:f7f7')).toBe(false);
    // Server and client both public (client 8.8.8.8 inverted: f7f7:f7f7).
    expect(isGlobalUnicastAddress('2001:0:808:808::f7f7:f7f7')).toBe(true);
  });
});
