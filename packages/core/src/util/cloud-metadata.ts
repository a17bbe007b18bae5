import { isIP } from 'node:net';
import type ipaddr from 'ipaddr.js';
import { lazyRequire } from './deferred-modules.js';

// Loaded on first use: entries that never check an address stay cheap to import.
const ipaddrLib = lazyRequire<typeof ipaddr>('ipaddr.js');

/**
 * Host names of cloud metadata services (GCP, AWS, Azure, Tencent and the short forms resolvers
 * answer), lower case without a trailing dot. `web_fetch` reaches them only through an exact
 * allowlist entry; `run_command` refuses commands that name them.
 */
export const CLOUD_METADATA_NAMES: ReadonlySet<string> = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.internal',
  'metadata.tencentyun.com',
]);

/**
 * IPv4 metadata and credential endpoints: AWS/GCP/Azure/OCI/OpenStack (169.254.169.254), AWS ECS
 * task credentials (169.254.170.2), EKS Pod Identity (169.254.170.23), Alibaba
 * (100.100.100.200), Azure WireServer (168.63.129.16, a public-range address served only inside
 * Azure).
 */
const METADATA_V4 = new Set([
  '169.254.169.254',
  '169.254.170.2',
  '169.254.170.23',
  '100.100.100.200',
  '168.63.129.16',
]);
/**
 * IPv6 ones, in `ipaddr.js`'s normalised form: AWS (fd00:ec2::254), EKS Pod Identity
 * (fd00:ec2::23), GCP (fd20:ce::254), OpenStack (fe80::a9fe:a9fe).
 */
const METADATA_V6 = new Set([
  'fd00:ec2:0:0:0:0:0:254',
  'fd00:ec2:0:0:0:0:0:23',
  'fd20:ce:0:0:0:0:0:254',
  'fe80:0:0:0:0:0:a9fe:a9fe',
]);

/** Whether a host name (any case, with or without a trailing dot) is a metadata service's. */
export function isCloudMetadataName(host: string): boolean {
  return CLOUD_METADATA_NAMES.has(host.trim().toLowerCase().replace(/\.$/, ''));
}

/**
 * The IPv4 addresses an IPv6 form carries: mapped, NAT64 (the well-known /96 and the local-use
 * /48 in both its layouts), 6to4, both of Teredo's, and the deprecated IPv4-compatible `::a.b.c.d`.
 */
function carriedV4(ip: ipaddr.IPv6): ipaddr.IPv4[] {
  const [p0, p1, p2, p3, p4, p5, p6, p7] = ip.parts as number[];
  const v4 = (high: number, low: number) =>
    new (ipaddrLib().IPv4)([(high >> 8) & 0xff, high & 0xff, (low >> 8) & 0xff, low & 0xff]);
  if (p0 === 0 && p1 === 0 && p2 === 0 && p3 === 0 && p4 === 0 && p5 === 0 && (p6! || p7! > 1))
    return [v4(p6!, p7!)];
  if (p0 === 0x64 && p1 === 0xff9b && p2 === 1) {
    // RFC 6052 /48: the address in bits 48-63 and 72-87, around the zero octet at 64-71.
    const split = new (ipaddrLib().IPv4)([p3! >> 8, p3! & 0xff, p4! & 0xff, p5! >> 8]);
    return [split, v4(p6!, p7!)];
  }
  switch (ip.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return [v4(p6!, p7!)];
    case '6to4':
      return [v4(p1!, p2!)];
    case 'teredo':
      // The server in bits 32-63, the client inverted in the last 32.
      return [v4(p2!, p3!), v4(~p6! & 0xffff, ~p7! & 0xffff)];
    default:
      return [];
  }
}

/**
 * Whether `address` is a cloud metadata address, compared as a parsed address — not as text — so
 * every spelling matches: any case, a zone (`%lo`), brackets, zeros written or compressed
 * (`fd00:ec2:0::254`), and IPv6 forms that carry a metadata IPv4 address (`::ffff:169.254.169.254`,
 * NAT64, 6to4, Teredo). `anyLinkLocal` counts every IPv4 link-local address (169.254/16) as one
 * (command screening, which cannot know which services a host runs there). Host names and
 * anything unparsable are `false`.
 */
export function isCloudMetadataAddress(
  address: string,
  options: { anyLinkLocal?: boolean } = {},
): boolean {
  let bare = address.trim();
  if (bare.startsWith('[') && bare.endsWith(']')) bare = bare.slice(1, -1);
  bare = bare.split('%', 1)[0]!;
  if (isIP(bare) === 0) return false;
  const lib = ipaddrLib();
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = lib.parse(bare);
  } catch {
    return false;
  }
  let carried: ipaddr.IPv4[];
  if (ip.kind() === 'ipv6') {
    if (METADATA_V6.has((ip as ipaddr.IPv6).toNormalizedString())) return true;
    carried = carriedV4(ip as ipaddr.IPv6);
  } else carried = [ip as ipaddr.IPv4];
  return carried.some(
    (v4) =>
      METADATA_V4.has(v4.toString()) ||
      (options.anyLinkLocal === true && v4.range() === 'linkLocal'),
  );
}
