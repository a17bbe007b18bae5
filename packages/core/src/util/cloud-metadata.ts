import { isIP } from 'node:net';
import type ipaddr from 'ipaddr.js';
import { lazyRequire } from './lazy-require.js';

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

/** IPv4 metadata addresses: AWS/GCP/Azure/OCI, AWS ECS tasks, Alibaba. */
const METADATA_V4 = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200']);
/** The IPv6 metadata address (AWS), in `ipaddr.js`'s normalised form. */
const METADATA_V6 = 'fd00:ec2:0:0:0:0:0:254';

/** Whether a host name (any case, with or without a trailing dot) is a metadata service's. */
export function isCloudMetadataName(host: string): boolean {
  return CLOUD_METADATA_NAMES.has(host.trim().toLowerCase().replace(/\.$/, ''));
}

/** The IPv4 addresses an IPv6 form carries (mapped, NAT64, 6to4, both of Teredo's). */
function carriedV4(ip: ipaddr.IPv6): ipaddr.IPv4[] {
  const [, p1, p2, p3, , , p6, p7] = ip.parts as number[];
  const v4 = (high: number, low: number) =>
    new (ipaddrLib().IPv4)([(high >> 8) & 0xff, high & 0xff, (low >> 8) & 0xff, low & 0xff]);
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
    if ((ip as ipaddr.IPv6).toNormalizedString() === METADATA_V6) return true;
    carried = carriedV4(ip as ipaddr.IPv6);
  } else carried = [ip as ipaddr.IPv4];
  return carried.some(
    (v4) =>
      METADATA_V4.has(v4.toString()) ||
      (options.anyLinkLocal === true && v4.range() === 'linkLocal'),
  );
}
