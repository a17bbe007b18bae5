import { isIP } from 'node:net';
import type ipaddr from 'ipaddr.js';
import { lazyRequire } from '../util/deferred-modules.js';

// Loaded on first use: the catalogue that binds the web tools stays cheap to import.
const ipaddrLib = lazyRequire<typeof ipaddr>('ipaddr.js');

import { KsadkError } from '../errors/ksadk-error.js';
import { isCloudMetadataAddress, isCloudMetadataName } from '../util/cloud-metadata.js';
import { classifyAddress } from './address-class.js';

/**
 * Which non-public targets `web_fetch` may reach. By default none: only global unicast addresses.
 * Written in `KSADK_WEB_SSRF_POLICY_JSON` as
 * `{"allowed_hosts": ["127.0.0.1", "internal.example", "*.corp.example"], "allowed_cidrs": ["10.20.0.0/16"]}`.
 */
export interface WebSsrfPolicyInput {
  /**
   * Hosts whose addresses may be non-public: exact names (`internal.example`), IP literals
   * (`127.0.0.1`, `::1`), `*.suffix` for every subdomain of `suffix`, or `*` for every host.
   * Cloud metadata names and addresses are reached only through an exact entry, never `*`,
   * a wildcard or a CIDR.
   */
  readonly allowedHosts?: readonly string[];
  /** Non-public address ranges any host may resolve to (`10.20.0.0/16`, `fd00::/8`). */
  readonly allowedCidrs?: readonly string[];
}

/** A parsed policy. */
export interface WebSsrfPolicy {
  /** Exact hosts, normalised as a URL parser does (`127.1` → `127.0.0.1`, lower case). */
  readonly exactHosts: ReadonlySet<string>;
  /** `*.suffix` entries, as `.suffix`. */
  readonly hostSuffixes: readonly string[];
  /** `*` was listed (or the legacy `allow_private: true`). */
  readonly anyHost: boolean;
  readonly cidrs: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][];
  /** Set when the deprecated `allow_private: true` switch is in use: shown in every result. */
  readonly warning: string | undefined;
}

/** A policy parsed from JSON, with what was wrong in it. */
export interface ParsedSsrfPolicy {
  readonly policy: WebSsrfPolicy;
  readonly problems: string[];
}

/** The legacy switch's warning. */
export const ALLOW_PRIVATE_WARNING =
  'KSADK_WEB_SSRF_POLICY_JSON uses the deprecated "allow_private": true, which lets web_fetch reach every private address; list the hosts you need in "allowed_hosts" instead.';

/** The policy that allows nothing but global unicast. */
export const STRICT_SSRF_POLICY: WebSsrfPolicy = Object.freeze({
  exactHosts: new Set<string>(),
  hostSuffixes: [],
  anyHost: false,
  cidrs: [],
  warning: undefined,
});

/** A host as a URL parser normalises it (IPv4 shorthands expanded, IPv6 compressed, lower case). */
export function normalizeHost(host: string): string | undefined {
  const trimmed = host.trim().replace(/\.$/, '');
  if (trimmed === '') return undefined;
  const bracketed = isIP(trimmed) === 6 ? `[${trimmed}]` : trimmed;
  try {
    const hostname = new URL(`http://${bracketed}/`).hostname;
    return hostname.startsWith('[') ? hostname.slice(1, -1) : hostname.replace(/\.$/, '');
  } catch {
    return undefined;
  }
}

/**
 * Builds a policy from code.
 *
 * @throws {KsadkError} `invalid_config` for an entry that is not a host, wildcard or CIDR.
 */
export function createSsrfPolicy(input: WebSsrfPolicyInput = {}): WebSsrfPolicy {
  const problems: string[] = [];
  const policy = buildPolicy(input.allowedHosts ?? [], input.allowedCidrs ?? [], problems, false);
  if (problems.length > 0) throw new KsadkError('invalid_config', problems.join('; '));
  return policy;
}

function buildPolicy(
  hosts: readonly unknown[],
  cidrs: readonly unknown[],
  problems: string[],
  legacyAllowPrivate: boolean,
): WebSsrfPolicy {
  const exactHosts = new Set<string>();
  const hostSuffixes: string[] = [];
  let anyHost = legacyAllowPrivate;
  for (const entry of hosts) {
    if (typeof entry !== 'string') {
      problems.push(`allowed_hosts entries must be strings (got ${typeof entry})`);
      continue;
    }
    if (entry.trim() === '*') {
      anyHost = true;
      continue;
    }
    const wildcard = entry.trim().startsWith('*.');
    const host = normalizeHost(wildcard ? entry.trim().slice(2) : entry);
    if (!host || host.includes('*')) {
      problems.push(`allowed_hosts entry "${entry.slice(0, 100)}" is not a host name or address`);
      continue;
    }
    if (wildcard) hostSuffixes.push(`.${host}`);
    else exactHosts.add(host);
  }
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  for (const entry of cidrs) {
    try {
      if (typeof entry !== 'string') throw new Error('not a string');
      ranges.push(ipaddrLib().parseCIDR(entry.trim()));
    } catch {
      problems.push(`allowed_cidrs entry ${JSON.stringify(entry)?.slice(0, 100)} is not a CIDR`);
    }
  }
  return Object.freeze({
    exactHosts,
    hostSuffixes: Object.freeze(hostSuffixes),
    anyHost,
    cidrs: Object.freeze(ranges),
    warning: legacyAllowPrivate ? ALLOW_PRIVATE_WARNING : undefined,
  });
}

/**
 * Parses the JSON of `KSADK_WEB_SSRF_POLICY_JSON`: keys `allowed_hosts` (list), `allowed_cidrs`
 * (list) and the deprecated `allow_private` (boolean; `true` works like `"allowed_hosts": ["*"]`
 * and adds a warning). Never throws: anything wrong is a problem, and a policy that cannot be read
 * allows nothing beyond global unicast (it fails closed).
 *
 * @example
 * ```ts
 * const { policy, problems } = parseSsrfPolicyJson('{"allowed_hosts":["127.0.0.1"]}');
 * ```
 */
export function parseSsrfPolicyJson(
  json: string | undefined,
  source = 'KSADK_WEB_SSRF_POLICY_JSON',
): ParsedSsrfPolicy {
  if (json === undefined || json.trim() === '') return { policy: STRICT_SSRF_POLICY, problems: [] };
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return {
      policy: STRICT_SSRF_POLICY,
      problems: [`${source} is not valid JSON; no private targets are allowed`],
    };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      policy: STRICT_SSRF_POLICY,
      problems: [`${source} must be a JSON object; no private targets are allowed`],
    };
  }
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(record)) {
    if (!['allowed_hosts', 'allowed_cidrs', 'allow_private'].includes(key))
      problems.push(
        `${source} has no key "${key.slice(0, 60)}" (keys: allowed_hosts, allowed_cidrs, allow_private)`,
      );
  }
  const list = (key: string): unknown[] => {
    const entry = Object.hasOwn(record, key) ? record[key] : undefined;
    if (entry === undefined) return [];
    if (Array.isArray(entry)) return entry;
    problems.push(`${source} "${key}" must be a list`);
    return [];
  };
  const allowPrivate = Object.hasOwn(record, 'allow_private') ? record['allow_private'] : undefined;
  if (allowPrivate !== undefined && typeof allowPrivate !== 'boolean')
    problems.push(`${source} "allow_private" must be true or false`);
  const legacy = allowPrivate === true;
  if (legacy) problems.push(ALLOW_PRIVATE_WARNING.replace('KSADK_WEB_SSRF_POLICY_JSON', source));
  const policy = buildPolicy(list('allowed_hosts'), list('allowed_cidrs'), problems, legacy);
  return { policy, problems };
}

/** Whether `host` is a cloud metadata name or address (as a parsed address, any spelling). */
function isMetadataTarget(host: string): boolean {
  return isCloudMetadataName(host) || isCloudMetadataAddress(host);
}

/** Why a target was refused, or nothing when it may be fetched. */
export type TargetRefusal = { readonly reason: string } | undefined;

/**
 * Checks a host name before it is resolved: cloud metadata names are refused unless listed
 * exactly. `host` is the URL's normalised hostname (no brackets).
 */
export function checkHostName(host: string, policy: WebSsrfPolicy): TargetRefusal {
  if (isMetadataTarget(host) && !policy.exactHosts.has(host))
    return { reason: `blocked cloud metadata host: ${host}` };
  return undefined;
}

const hostListed = (host: string, policy: WebSsrfPolicy): boolean =>
  policy.anyHost ||
  policy.exactHosts.has(host) ||
  policy.hostSuffixes.some((suffix) => host.endsWith(suffix));

/**
 * Checks every address a host resolved to (one refused address refuses the host): global unicast
 * passes; a non-global address passes only when the host is listed or the address is in an
 * allowed CIDR; a metadata address only when it (or the host) is listed exactly.
 */
export function checkAddresses(
  host: string,
  addresses: readonly string[],
  policy: WebSsrfPolicy,
): TargetRefusal {
  // A literal address came from the URL and may be named; what a name resolves to may not (it
  // would let a model map the host's internal DNS).
  const literal = isIP(host) !== 0;
  for (const address of addresses) {
    const verdict = classifyAddress(address);
    if (verdict.range === 'invalid') return { reason: `not an IP address: ${address}` };
    if (isMetadataTarget(address)) {
      const spelled = normalizeHost(address.split('%', 1)[0]!) ?? address;
      if (policy.exactHosts.has(spelled) || policy.exactHosts.has(host)) continue;
      return {
        reason: literal
          ? `blocked cloud metadata address: ${address}`
          : `blocked: ${host} resolves to a cloud metadata address`,
      };
    }
    if (verdict.global) continue;
    if (hostListed(host, policy)) continue;
    const parsed = ipaddrLib().parse(address.split('%', 1)[0]!);
    const inCidr = policy.cidrs.some(
      ([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits),
    );
    if (inCidr) continue;
    if (!literal) return { reason: `blocked: ${host} resolves to a non-public address` };
    const carried = verdict.embedded ? ` (carries ${verdict.embedded})` : '';
    return { reason: `blocked non-public address: ${address}${carried}` };
  }
  return undefined;
}
