import { posix } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

/** What standing grant ids look like. */
export const STANDING_GRANT_ID = /^sgr_[0-9a-f]{32}$/;

/**
 * A condition on one top-level argument of a call: the exact value, or — for a path argument of a
 * workspace tool — a path prefix (matched on whole segments, after normalising; a path that
 * climbs out with `..` never matches).
 */
export type StandingGrantCondition = { readonly equals: unknown } | { readonly pathPrefix: string };

/** Conditions on the arguments, by top-level field: every one must hold for a call to match. */
export type StandingGrantMatch = Readonly<Record<string, StandingGrantCondition>>;

/**
 * A standing decision: "always allow" (or "always reject") one tool for one session, or for one
 * user across sessions, optionally only for calls whose arguments match, until it expires or is
 * revoked. It lives in the approval store, keyed by account like everything else.
 */
export interface StandingGrant {
  /** `sgr_` + 32 hex characters. */
  readonly id: string;
  readonly effect: 'allow' | 'deny';
  /** `session`: this session only; `user`: every session of this user in this account. */
  readonly scope: 'session' | 'user';
  readonly accountId: string;
  /** The user it was decided for (`''` when the calls carry no user). */
  readonly userId: string;
  /** The session it covers (`''` for `scope: 'user'`). */
  readonly sessionId: string;
  readonly toolName: string;
  /** Conditions on the arguments; absent: every call of the tool. */
  readonly match?: StandingGrantMatch;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** Epoch milliseconds after which it no longer applies. */
  readonly expiresAt: number;
  /** Epoch milliseconds of its revocation, once revoked. */
  readonly revokedAt?: number;
  /** The approval request it was decided on. */
  readonly approvalId: string;
  /** Who decided it (`account:<id>`, `user:<id>` or `admin`). */
  readonly decidedBy: string;
  /** The host's reason, if given. */
  readonly reason?: string;
}

/** Whether a grant is in force at `now`. */
export const isActiveGrant = (grant: StandingGrant, now: number): boolean =>
  grant.revokedAt === undefined && grant.expiresAt > now;

/** A path as the workspace tools read it, `/`-separated and normalised; `undefined` when it climbs out. */
function normalisedPath(value: string): string | undefined {
  let path = posix.normalize(value.replaceAll('\\', '/'));
  if (path === '..' || path.startsWith('../')) return undefined;
  if (path === '.') return '';
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path;
}

/** Whether `value` lies at or under `prefix`, on whole path segments. */
export function underPathPrefix(value: unknown, prefix: string): boolean {
  if (typeof value !== 'string') return false;
  const path = normalisedPath(value);
  const root = normalisedPath(prefix);
  if (path === undefined || root === undefined) return false;
  if (root === '') return !path.startsWith('/');
  if (root === '/') return path.startsWith('/');
  return path === root || path.startsWith(`${root}/`);
}

/** Whether a call's validated arguments meet every condition of `match`. */
export function matchesArguments(
  match: StandingGrantMatch | undefined,
  args: Readonly<Record<string, unknown>>,
): boolean {
  if (!match) return true;
  for (const [field, condition] of Object.entries(match)) {
    const value = Object.hasOwn(args, field) ? args[field] : undefined;
    if ('pathPrefix' in condition) {
      if (!underPathPrefix(value, condition.pathPrefix)) return false;
    } else if (!isDeepStrictEqual(value, condition.equals)) return false;
  }
  return true;
}

/** Whether `grant` covers a call of `toolName` in this account, session and user, with these arguments. */
export function grantCovers(
  grant: StandingGrant,
  call: {
    toolName: string;
    accountId: string;
    userId: string;
    sessionId: string;
    args: Readonly<Record<string, unknown>>;
  },
  now: number,
): boolean {
  if (!isActiveGrant(grant, now)) return false;
  if (grant.toolName !== call.toolName || grant.accountId !== call.accountId) return false;
  if (grant.userId !== call.userId) return false;
  if (grant.scope === 'session' && grant.sessionId !== call.sessionId) return false;
  return matchesArguments(grant.match, call.args);
}
