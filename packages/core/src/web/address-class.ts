import { isIP } from 'node:net';
import type ipaddr from 'ipaddr.js';
import { lazyRequire } from '../util/deferred-modules.js';

// Loaded on first use: the catalogue that binds the web tools stays cheap to import.
const ipaddrLib = lazyRequire<typeof ipaddr>('ipaddr.js');

/** A value computed on first use. */
function lazyValue<T>(make: () => T): () => T {
  let value: T | undefined;
  return () => {
    value ??= make();
    return value;
  };
}

/** How one IP address was classified. */
export interface AddressClass {
  /** The address as given. */
  readonly address: string;
  /** True only for global unicast: an address that reaches the public internet. */
  readonly global: boolean;
  /**
   * The range it falls in (`unicast`, `loopback`, `private`, `linkLocal`, `carrierGradeNat`,
   * `multicast`, `unspecified`, `reserved`, `uniqueLocal`, `ipv4Mapped`, `rfc6052`, `6to4`,
   * `teredo`, …, or `invalid`), as `ipaddr.js` names them.
   */
  readonly range: string;
  /** The IPv4 address an IPv6 form carries (mapped, NAT64, 6to4, Teredo), when there is one. */
  readonly embedded?: string;
}

// The one IPv6 block IANA allocates global unicast from; anything outside it is special.
const globalUnicastV6 = lazyValue(() => ipaddrLib().parseCIDR('2000::/3'));
// RFC 8215 local-use NAT64 prefix: not globally reachable, whatever it embeds.
const localUseNat64 = lazyValue(() => ipaddrLib().parseCIDR('64:ff9b:1::/48'));

const v4From = (high: number, low: number): ipaddr.IPv4 =>
  new (ipaddrLib().IPv4)([high >> 8, high & 0xff, low >> 8, low & 0xff]);

function classifyV4(address: string, ip: ipaddr.IPv4): AddressClass {
  const range = ip.range();
  return { address, global: range === 'unicast', range };
}

function classifyV6(address: string, ip: ipaddr.IPv6): AddressClass {
  const range = ip.range();
  const parts = ip.parts;
  const embedded = (v4: ipaddr.IPv4, also?: ipaddr.IPv4): AddressClass => {
    const inner = classifyV4(v4.toString(), v4);
    const second = also ? classifyV4(also.toString(), also) : undefined;
    return {
      address,
      global: inner.global && (second?.global ?? true),
      range,
      embedded: inner.global && second && !second.global ? second.address : inner.address,
    };
  };
  switch (range) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return embedded(v4From(parts[6]!, parts[7]!));
    case 'rfc6052':
      // 64:ff9b::/96 carries the IPv4 address in its last 32 bits; the local-use /48 is never global.
      if (ip.match(localUseNat64())) return { address, global: false, range };
      return embedded(v4From(parts[6]!, parts[7]!));
    case '6to4':
      return embedded(v4From(parts[1]!, parts[2]!));
    case 'teredo':
      // Server address in bits 32–63; the client's, inverted, in the last 32 bits.
      return embedded(
        v4From(parts[2]!, parts[3]!),
        v4From(~parts[6]! & 0xffff, ~parts[7]! & 0xffff),
      );
    case 'unicast':
      return { address, global: ip.match(globalUnicastV6()), range };
    default:
      return { address, global: false, range };
  }
}

/**
 * Classifies an IP address (dotted IPv4 or IPv6, optionally with a zone). Only global unicast is
 * `global`: loopback, private, link-local, CGNAT (100.64/10), multicast, unspecified, reserved and
 * documentation ranges are not; IPv6 forms that carry an IPv4 address (IPv4-mapped, NAT64
 * `64:ff9b::/96`, 6to4, Teredo) are global only when what they carry is; the local-use NAT64
 * prefix `64:ff9b:1::/48` and everything outside `2000::/3` never are. Anything unparsable is
 * `invalid` and not global.
 *
 * @example
 * ```ts
 * classifyAddress('::ffff:127.0.0.1'); // { global: false, range: 'ipv4Mapped', embedded: '127.0.0.1', … }
 * ```
 */
export function classifyAddress(address: string): AddressClass {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // Only canonical text forms: `ipaddr.js` also reads `0x7f.1` and friends, which a URL parser
  // has already normalised (or a resolver never returns).
  if (isIP(bare.split('%', 1)[0]!) === 0) return { address, global: false, range: 'invalid' };
  try {
    const ip = ipaddrLib().parse(bare);
    return ip.kind() === 'ipv4'
      ? classifyV4(address, ip as ipaddr.IPv4)
      : classifyV6(address, ip as ipaddr.IPv6);
  } catch {
    return { address, global: false, range: 'invalid' };
  }
}

/**
 * True when `address` is a global unicast address — the only kind `web_fetch` connects to
 * without an allowlist entry. See {@link classifyAddress} for what counts.
 *
 * @example
 * ```ts
 * isGlobalUnicastAddress('93.184.216.34'); // true
 * isGlobalUnicastAddress('100.64.0.1'); // false (CGNAT)
 * ```
 */
export function isGlobalUnicastAddress(address: string): boolean {
  return classifyAddress(address).global;
}
