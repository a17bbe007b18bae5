import { randomBytes } from 'node:crypto';
import { KsadkError } from '../../errors/ksadk-error.js';
import type { Tool } from '../../tool/tool.js';
import { canonicalDigest, canonicalJson } from '../../util/canonical-json.js';
import type {
  ApprovalDecisionOptions,
  ApprovalPrincipal,
  ApprovalRejectionOptions,
  StandingDecision,
} from '../gateway-types.js';
import {
  type ArgumentLimits,
  FORBIDDEN_ARGUMENT_KEYS,
  parseModelArguments,
} from '../model-arguments.js';
import type { ApprovalInboxItem, ApprovalRequest } from '../results.js';
import { validateToolInput } from '../validate-input.js';
import { APPROVAL_ID, idForMessage, owns, principalLabel, principalOf } from './approval-owner.js';
import { inboxItemOf, requestOf } from './approval-request.js';
import type { ApprovalAuditEntry } from './audit-entry.js';
import type { GateKit } from './gate-kit.js';
import type { ApprovalGrant, ApprovalKeys } from './grant.js';
import { grantOf } from './presented-grant.js';
import { deadlineOf, pageSize } from './record-filters.js';
import {
  STANDING_GRANT_ID,
  type StandingGrant,
  type StandingGrantMatch,
} from './standing-grant.js';
import type { ApprovalEdit, ApprovalRecord } from './store.js';
import type { ApprovalListStatus, ApprovalPage } from './store-queries.js';

const HOUR = 60 * 60 * 1000;
/** How long a standing grant lasts unless `until` says otherwise, and at most. */
export const STANDING_GRANT_DEFAULTS = Object.freeze({
  sessionMs: 12 * HOUR,
  userMs: 30 * 24 * HOUR,
  maxMs: 365 * 24 * HOUR,
});
const MAX_MATCH_FIELDS = 32;
const MAX_MATCH_CHARS = 8 * 1024;

const invalid = (message: string): KsadkError => new KsadkError('invalid_arguments', message);

/** A standing decision's match, checked and copied. */
function checkedMatch(match: unknown): StandingGrantMatch {
  if (typeof match !== 'object' || match === null || Array.isArray(match))
    throw invalid('match must be an object of { field: { equals } | { pathPrefix } }.');
  const entries = Object.entries(match);
  if (entries.length === 0 || entries.length > MAX_MATCH_FIELDS)
    throw invalid(`match must name between 1 and ${MAX_MATCH_FIELDS} argument fields.`);
  const out: Record<string, StandingGrantMatch[string]> = Object.create(null);
  for (const [field, condition] of entries) {
    if (FORBIDDEN_ARGUMENT_KEYS.has(field))
      throw invalid(`match may not name the field "${field}".`);
    const keys = typeof condition === 'object' && condition !== null ? Object.keys(condition) : [];
    if (keys.length === 1 && keys[0] === 'pathPrefix') {
      const prefix = (condition as { pathPrefix: unknown }).pathPrefix;
      if (typeof prefix !== 'string' || prefix.length > 1024)
        throw invalid(`match.${field}.pathPrefix must be a string of at most 1024 characters.`);
      out[field] = { pathPrefix: prefix };
    } else if (keys.length === 1 && keys[0] === 'equals') {
      const parsed = parseModelArguments(
        { value: (condition as { equals: unknown }).equals },
        {
          maxChars: MAX_MATCH_CHARS,
          maxDepth: 16,
        },
      );
      if (!parsed.ok) throw invalid(`match.${field}.equals: ${parsed.message}`);
      out[field] = { equals: parsed.args['value'] };
    } else throw invalid(`match.${field} must be { equals: value } or { pathPrefix: "dir/" }.`);
  }
  if (canonicalJson(out).length > MAX_MATCH_CHARS)
    throw invalid(`match is larger than ${MAX_MATCH_CHARS} characters.`);
  return { ...out };
}

/** When a standing decision ends, checked. */
function untilOf(decision: StandingDecision, now: number): number {
  const { until, always } = decision;
  const at = until instanceof Date ? until.getTime() : until;
  if (at === undefined)
    return (
      now + (always === 'user' ? STANDING_GRANT_DEFAULTS.userMs : STANDING_GRANT_DEFAULTS.sessionMs)
    );
  if (typeof at !== 'number' || !Number.isFinite(at) || at <= now)
    throw invalid('until must be a time in the future (a Date or epoch milliseconds).');
  return Math.min(at, now + STANDING_GRANT_DEFAULTS.maxMs);
}

/** The standing grant a decision asks for, or `undefined` when it asks for none. */
function standingGrantOf(
  record: ApprovalRecord,
  decision: StandingDecision & { reason?: string },
  effect: 'allow' | 'deny',
  by: string,
  now: number,
): StandingGrant | undefined {
  const { always } = decision;
  if (always === undefined) {
    if (decision.until !== undefined || decision.match !== undefined)
      throw invalid('until and match only go with always: "session" or "user".');
    return undefined;
  }
  if (always !== 'session' && always !== 'user')
    throw invalid('always must be "session" or "user".');
  if (effect === 'allow' && record.standingAllowed === false)
    throw new KsadkError(
      'standing_grant_not_allowed',
      `${record.toolName} always asks (or is of critical risk) and its definition does not allow standing grants; approve this call once instead.`,
    );
  return {
    id: `sgr_${randomBytes(16).toString('hex')}`,
    effect,
    scope: always,
    accountId: record.accountId,
    userId: record.userId,
    sessionId: always === 'session' ? record.sessionId : '',
    toolName: record.toolName,
    ...(decision.match !== undefined ? { match: checkedMatch(decision.match) } : {}),
    createdAt: now,
    expiresAt: untilOf(decision, now),
    approvalId: record.id,
    decidedBy: by,
    ...(decision.reason ? { reason: decision.reason.slice(0, 1000) } : {}),
  };
}

/** The human's edited arguments, checked (and validated when the tool is at hand). */
async function editOf(
  record: ApprovalRecord,
  args: unknown,
  tool: Tool | undefined,
  limits: ArgumentLimits,
): Promise<ApprovalEdit | undefined> {
  if (args === undefined) return undefined;
  const parsed = parseModelArguments(args, limits);
  if (!parsed.ok) throw invalid(`The edited arguments are not valid: ${parsed.message}`);
  if (tool && tool.name === record.toolName) {
    const validation = await validateToolInput(tool, structuredClone(parsed.args));
    if (!validation.ok) {
      const first = validation.issues[0];
      throw new KsadkError(
        'invalid_arguments',
        `The edited arguments are not valid for ${tool.name}${first ? `: ${first.path ? `${first.path}: ` : ''}${first.message}` : '.'}`,
        { details: { issues: validation.issues } },
      );
    }
  }
  const digest = canonicalDigest(parsed.args);
  return digest === record.argsDigest ? undefined : { arguments: parsed.args, digest };
}

/** The host's side of approvals: decisions, the inbox, standing grants, the audit log. */
export interface HostDecisions {
  approve(id: string, options?: ApprovalDecisionOptions): Promise<ApprovalGrant>;
  reject(id: string, options?: ApprovalRejectionOptions): Promise<void>;
  getRequest(id: string, principal?: ApprovalPrincipal): Promise<ApprovalRequest | undefined>;
  getStatus(id: string, principal?: ApprovalPrincipal): Promise<ApprovalInboxItem | undefined>;
  listRequests(query: {
    principal?: ApprovalPrincipal;
    status?: ApprovalListStatus | 'all';
    sessionId?: string;
    toolName?: string;
    limit?: number;
    cursor?: string;
  }): Promise<ApprovalPage<ApprovalInboxItem>>;
  listStandingGrants(query: {
    principal?: ApprovalPrincipal;
    sessionId?: string;
    toolName?: string;
    includeInactive?: boolean;
    limit?: number;
    cursor?: string;
  }): Promise<ApprovalPage<StandingGrant>>;
  revokeStandingGrant(
    id: string,
    options?: { principal?: ApprovalPrincipal; reason?: string },
  ): Promise<StandingGrant>;
  auditLog(query: {
    principal?: ApprovalPrincipal;
    since?: Date | number;
    limit?: number;
    cursor?: string;
  }): Promise<ApprovalPage<ApprovalAuditEntry>>;
}

/** The host decisions of a gate. */
export function createHostDecisions(
  kit: GateKit,
  keys: ApprovalKeys,
  limits: ArgumentLimits,
): HostDecisions {
  const { store } = kit.options;

  const notFound = (approvalId: unknown, what: string): KsadkError =>
    new KsadkError(
      'approval_not_found',
      `Approval request ${idForMessage(approvalId)} is unknown, expired, ${what}.`,
    );

  /** The record when it exists, is before its deadline, and belongs to the principal. */
  const owned = async (
    approvalId: string,
    principal: ApprovalPrincipal,
  ): Promise<ApprovalRecord | undefined> => {
    if (typeof approvalId !== 'string' || !APPROVAL_ID.test(approvalId)) return undefined;
    const record = await store.get(approvalId);
    if (!record || record.status === 'consumed' || deadlineOf(record) <= Date.now())
      return undefined;
    return owns(principal, record) ? record : undefined;
  };

  /** Saves a standing grant first (a full quota refuses the whole decision). */
  const saveGrant = async (grant: StandingGrant | undefined): Promise<void> => {
    if (grant) await store.saveStandingGrant(grant);
  };
  const dropGrant = async (grant: StandingGrant | undefined): Promise<void> => {
    if (grant) await store.revokeStandingGrant(grant.id, Date.now());
  };

  const accountScope = (principal: ApprovalPrincipal): { accountId?: string; userId?: string } =>
    'admin' in principal
      ? {}
      : {
          accountId: principal.accountId,
          ...(principal.userId !== undefined ? { userId: principal.userId } : {}),
        };

  return {
    async approve(approvalId, decision = {}) {
      const principal = principalOf(decision.principal);
      const record = await owned(approvalId, principal);
      if (record?.status === 'approved') {
        // The same decision again (an adapter replaying it in order): the grant it made.
        const edit = await editOf(record, decision.args, decision.tool, limits).catch(() => null);
        if (edit !== null && edit?.digest === record.edited?.digest) return grantOf(record, keys);
      }
      if (record?.status !== 'pending')
        throw notFound(approvalId, 'already rejected or already used');
      const now = Date.now();
      const by = principalLabel(principal);
      const edited = await editOf(record, decision.args, decision.tool, limits);
      const grant = standingGrantOf(record, decision, 'allow', by, now);
      await saveGrant(grant);
      const approved = await store.transition(approvalId, 'pending', 'approved', {
        decidedAt: now,
        decidedBy: by,
        ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
        ...(edited ? { edited } : {}),
      });
      if (!approved) {
        await dropGrant(grant);
        throw notFound(approvalId, 'already rejected or already used');
      }
      const how = edited ? 'edited' : grant ? 'standing_grant' : 'once';
      await kit.audit(
        'approved',
        { record },
        {
          how,
          approvalId,
          by,
          ...(grant ? { grantId: grant.id } : {}),
          ...(decision.reason ? { reason: decision.reason } : {}),
          ...(edited ? { argsDigest: edited.digest } : {}),
        },
      );
      kit.decided(
        { ...approved, ...(edited ? { edited } : {}) },
        {
          decision: 'approved',
          how,
          by,
          ...(decision.reason ? { reason: decision.reason } : {}),
          ...(grant ? { standingGrantId: grant.id } : {}),
        },
      );
      return grantOf({ ...approved, ...(edited ? { edited } : {}) }, keys, grant?.id);
    },

    async reject(approvalId, decision = {}) {
      const principal = principalOf(decision.principal);
      const record = await owned(approvalId, principal);
      if (record?.status !== 'pending') throw notFound(approvalId, 'already decided');
      const now = Date.now();
      const by = principalLabel(principal);
      const grant = standingGrantOf(record, decision, 'deny', by, now);
      await saveGrant(grant);
      const rejected = await store.transition(approvalId, 'pending', 'rejected', {
        decidedAt: now,
        decidedBy: by,
        reason: decision.reason ?? '',
      });
      if (!rejected) {
        await dropGrant(grant);
        throw notFound(approvalId, 'already decided');
      }
      await kit.audit(
        'rejected',
        { record },
        {
          how: grant ? 'standing_grant' : 'once',
          approvalId,
          by,
          ...(grant ? { grantId: grant.id } : {}),
          ...(decision.reason ? { reason: decision.reason } : {}),
        },
      );
      kit.decided(rejected, {
        decision: 'rejected',
        how: grant ? 'standing_grant' : 'once',
        by,
        ...(decision.reason ? { reason: decision.reason } : {}),
        ...(grant ? { standingGrantId: grant.id } : {}),
      });
    },

    async getRequest(approvalId, principal) {
      const record = await owned(approvalId, principalOf(principal));
      return record ? requestOf(record) : undefined;
    },

    async getStatus(approvalId, principal) {
      if (typeof approvalId !== 'string' || !APPROVAL_ID.test(approvalId)) return undefined;
      const record = await store.get(approvalId);
      return record && owns(principalOf(principal), record)
        ? inboxItemOf(record, Date.now())
        : undefined;
    },

    async listRequests(query) {
      const principal = principalOf(query.principal);
      const now = Date.now();
      const status = query.status ?? 'pending';
      const page = await store.listRequests({
        ...accountScope(principal),
        ...(status !== 'all' ? { status } : {}),
        ...(query.sessionId !== undefined ? { sessionId: query.sessionId } : {}),
        ...(query.toolName !== undefined ? { toolName: query.toolName } : {}),
        now,
        limit: pageSize(query.limit ?? 50),
        ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
      });
      return { ...page, items: page.items.map((record) => inboxItemOf(record, now)) };
    },

    async listStandingGrants(query) {
      const principal = principalOf(query.principal);
      return store.listStandingGrants({
        ...accountScope(principal),
        ...(query.sessionId !== undefined ? { sessionId: query.sessionId } : {}),
        ...(query.toolName !== undefined ? { toolName: query.toolName } : {}),
        ...(query.includeInactive ? { includeInactive: true } : {}),
        now: Date.now(),
        limit: pageSize(query.limit ?? 50),
        ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
      });
    },

    async revokeStandingGrant(id, options = {}) {
      const principal = principalOf(options.principal);
      const found =
        typeof id === 'string' && STANDING_GRANT_ID.test(id)
          ? await store.getStandingGrant(id)
          : undefined;
      const mine =
        found &&
        ('admin' in principal
          ? principal.admin === true
          : found.accountId === principal.accountId &&
            (principal.userId === undefined ||
              found.userId === '' ||
              found.userId === principal.userId));
      const revoked = mine ? await store.revokeStandingGrant(id, Date.now()) : undefined;
      if (!revoked)
        throw new KsadkError(
          'standing_grant_not_found',
          `Standing grant ${typeof id === 'string' && STANDING_GRANT_ID.test(id) ? id : '(malformed id)'} is unknown, already revoked, or not yours.`,
        );
      await kit.audit(
        'revoked',
        { grant: revoked },
        {
          grantId: revoked.id,
          by: principalLabel(principal),
          ...(options.reason ? { reason: options.reason } : {}),
        },
      );
      return revoked;
    },

    async auditLog(query) {
      const principal = principalOf(query.principal);
      const since = query.since instanceof Date ? query.since.getTime() : query.since;
      const page = await store.listAudit({
        ...('admin' in principal ? {} : { accountId: principal.accountId }),
        ...(since !== undefined ? { since } : {}),
        limit: pageSize(query.limit ?? 100),
        ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
      });
      if ('admin' in principal || principal.userId === undefined) return page;
      const user = principal.userId;
      return {
        ...page,
        items: page.items.filter((entry) => entry.userId === '' || entry.userId === user),
      };
    },
  };
}
