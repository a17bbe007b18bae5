import { describe, expect, it } from 'vitest';
import {
  ALLOW_PRIVATE_WARNING,
  checkAddresses,
  checkHostName,
  createSsrfPolicy,
  normalizeHost,
  parseSsrfPolicyJson,
  STRICT_SSRF_POLICY,
} from './ssrf-policy.js';

describe('SSRF policy', () => {
  it('normalises hosts as a URL parser does', () => {
    expect(normalizeHost('127.1')).toBe('127.0.0.1');
    expect(normalizeHost('0x7f000001')).toBe('127.0.0.1');
    expect(normalizeHost('[::1]')).toBe('::1');
    expect(normalizeHost('::FFFF:127.0.0.1')).toBe('::ffff:7f00:1');
    expect(normalizeHost('Internal.Example.')).toBe('internal.example');
    expect(normalizeHost('a b')).toBeUndefined();
  });

  it('allows only global unicast by default', () => {
    expect(checkAddresses('example.com', ['93.184.216.34'], STRICT_SSRF_POLICY)).toBeUndefined();
    expect(
      checkAddresses('example.com', ['93.184.216.34', '10.0.0.1'], STRICT_SSRF_POLICY),
    ).toEqual({
      reason: 'blocked: example.com resolves to a non-public address',
    });
    // A literal address is named (the URL held it); what a name resolves to is not.
    expect(checkAddresses('10.0.0.1', ['10.0.0.1'], STRICT_SSRF_POLICY)).toEqual({
      reason: 'blocked non-public address: 10.0.0.1',
    });
    expect(
      checkAddresses('::ffff:7f00:1', ['::ffff:7f00:1'], STRICT_SSRF_POLICY)?.reason,
    ).toContain('carries 127.0.0.1');
    for (const address of ['::ffff:7f00:1', '169.254.169.254', '192.168.7.7']) {
      const refusal = checkAddresses('db.corp.internal', [address], STRICT_SSRF_POLICY);
      expect(refusal?.reason, address).toMatch(/^blocked: db\.corp\.internal resolves to a/);
      expect(refusal?.reason, address).not.toMatch(/127\.0|169\.254|192\.168|ffff/);
    }
  });

  it('allows listed hosts, wildcards and CIDRs', () => {
    const policy = createSsrfPolicy({
      allowedHosts: ['127.1', 'internal.example', '*.corp.example'],
      allowedCidrs: ['10.20.0.0/16'],
    });
    expect(checkAddresses('127.0.0.1', ['127.0.0.1'], policy)).toBeUndefined();
    expect(checkAddresses('internal.example', ['192.168.1.5'], policy)).toBeUndefined();
    expect(checkAddresses('a.corp.example', ['10.1.1.1'], policy)).toBeUndefined();
    expect(checkAddresses('corp.example', ['10.1.1.1'], policy)).toBeDefined();
    expect(checkAddresses('other.example', ['10.20.3.4'], policy)).toBeUndefined();
    expect(checkAddresses('other.example', ['10.21.3.4'], policy)).toBeDefined();
  });

  it('reaches cloud metadata only through an exact entry', () => {
    const wide = createSsrfPolicy({ allowedHosts: ['*'], allowedCidrs: ['169.254.0.0/16'] });
    expect(checkHostName('metadata.google.internal', wide)).toBeDefined();
    expect(checkAddresses('x.example', ['169.254.169.254'], wide)?.reason).toContain('metadata');
    expect(checkAddresses('x.example', ['::ffff:169.254.169.254'], wide)).toBeDefined();
    expect(checkAddresses('x.example', ['169.254.1.1'], wide)).toBeUndefined();
    const exact = createSsrfPolicy({ allowedHosts: ['metadata.google.internal'] });
    expect(checkHostName('metadata.google.internal', exact)).toBeUndefined();
    expect(checkAddresses('metadata.google.internal', ['169.254.169.254'], exact)).toBeUndefined();
  });

  it('a metadata address in any spelling a custom resolver answers is refused before any allowlist', () => {
    const wide = createSsrfPolicy({ allowedHosts: ['*'], allowedCidrs: ['fd00::/8', '0.0.0.0/0'] });
    const spellings = [
      'FD00:EC2::254',
      'fd00:ec2:0::254',
      'fd00:ec2:0:0:0:0:0:254',
      'fd00:ec2::254%lo',
      'fd00:0ec2::0254',
      '[fd00:ec2::254]',
      '::ffff:169.254.169.254',
      '::FFFF:A9FE:A9FE',
      '64:ff9b::a9fe:a9fe',
      '2002:a9fe:a9fe::1',
      '169.254.170.2',
      '100.100.100.200',
      // EKS Pod Identity, GCP and OpenStack IPv6, IPv4-compatible and local-use NAT64 /48 forms.
      '169.254.170.23',
      'fd00:ec2::23',
      'fd20:ce::254',
      'fe80::a9fe:a9fe',
      '::a9fe:a9fe',
      '64:ff9b:1:a9fe:a9:fe00::',
    ];
    for (const address of spellings) {
      const refusal = checkAddresses('api.example', [address], wide);
      expect(refusal?.reason, address).toBe(
        'blocked: api.example resolves to a cloud metadata address',
      );
      // Also when the host is listed by wildcard or suffix: only an exact entry reaches metadata.
      const suffix = createSsrfPolicy({ allowedHosts: ['*.example'] });
      expect(checkAddresses('api.example', [address], suffix), address).toBeDefined();
    }
    // Azure's WireServer is a public-range address: refused even with no allowlist at all.
    expect(checkAddresses('x.example', ['168.63.129.16'], STRICT_SSRF_POLICY)?.reason).toContain(
      'metadata',
    );
    // An exact entry still reaches it, in whatever spelling the resolver answers.
    const exact = createSsrfPolicy({ allowedHosts: ['fd00:ec2::254'] });
    expect(checkAddresses('fd00:ec2::254', ['fd00:ec2:0::254'], exact)).toBeUndefined();
  });

  it('parses the JSON form and reports what is wrong, failing closed', () => {
    const good = parseSsrfPolicyJson('{"allowed_hosts":["127.0.0.1","internal.example"]}');
    expect(good.problems).toEqual([]);
    expect([...good.policy.exactHosts]).toEqual(['127.0.0.1', 'internal.example']);
    expect(parseSsrfPolicyJson('{nope').problems[0]).toContain('not valid JSON');
    expect(parseSsrfPolicyJson('{nope').policy).toBe(STRICT_SSRF_POLICY);
    expect(parseSsrfPolicyJson('[1]').problems[0]).toContain('JSON object');
    const odd = parseSsrfPolicyJson(
      '{"allowed_hostz":[],"allowed_hosts":[1,"a b"],"allowed_cidrs":["10.0.0.0/99"],"__proto__":{"anyHost":true}}',
    );
    expect(odd.problems.join('\n')).toMatch(
      /allowed_hostz[\s\S]*__proto__[\s\S]*strings[\s\S]*a b[\s\S]*CIDR/,
    );
    expect(odd.policy.anyHost).toBe(false);
    expect(() => createSsrfPolicy({ allowedCidrs: ['x'] })).toThrow(/CIDR/);
  });

  it('keeps allow_private as a deprecated alias with a warning', () => {
    const legacy = parseSsrfPolicyJson('{"allow_private": true}');
    expect(legacy.policy.anyHost).toBe(true);
    expect(legacy.policy.warning).toBe(ALLOW_PRIVATE_WARNING);
    expect(legacy.problems).toContain(ALLOW_PRIVATE_WARNING);
    expect(checkAddresses('x', ['10.0.0.1'], legacy.policy)).toBeUndefined();
    expect(checkAddresses('x', ['169.254.169.254'], legacy.policy)).toBeDefined();
  });
});
