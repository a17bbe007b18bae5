import type { ResultBudget } from '../../budget/result-budget.js';
import type { InvocationContext } from '../../context/invocation-context.js';
import type { Tool } from '../../tool/tool.js';
import { redactDeep } from '../../util/redact.js';
import type {
  ApprovalExpiredResult,
  ApprovalInboxItem,
  ApprovalRejectedResult,
  ApprovalRequiredResult,
  ApprovalUsedResult,
  ToolResult,
} from '../results.js';
import { gatewayFailure } from '../results.js';
import { inboxItemOf } from './approval-request.js';
import type { ApprovalAuditEntry, ApprovalAuditHow } from './audit-entry.js';
import { type AuditDetails, type AuditSubject, auditEntry } from './audit-log.js';
import type { CallDecision } from './call-policy.js';
import type { ApprovalGrant, ApprovalKeys } from './grant.js';
import type { ApprovalRecord, ApprovalStore } from './store-types.js';

/** What a human (or the expiry rule, or a standing grant) decided, as observers learn it. */
export interface ApprovalDecidedEvent {
  readonly request: ApprovalInboxItem;
  readonly decision: 'approved' | 'rejected' | 'expired';
  readonly how: ApprovalAuditHow;
  /** Who decided (`account:<id>`, `user:<id>`, `admin`), for a human decision. */
  readonly by?: string;
  readonly reason?: string;
  /** The standing grant made with the decision ("always"), when one was. */
  readonly standingGrantId?: string;
}

/** What the gate needs from the gateway. */
export interface ApprovalGateOptions {
  readonly store: ApprovalStore;
  readonly keys: ApprovalKeys;
  /** How long a human has to decide. */
  readonly ttlMs: number;
  /** How long a record is kept past its deadline (expiry and replays stay recognisable). */
  readonly retentionMs: number;
  readonly budget: ResultBudget;
  /** How requests resolve at their deadline, unless the tool says otherwise. */
  readonly onExpiry: 'reject' | 'approve';
  /** Whether audit records hold the arguments too. */
  readonly auditArguments: boolean;
  /** Called with each newly stored request. */
  readonly onRequested?: (request: ApprovalInboxItem, context: InvocationContext) => void;
  /** Called with each decision. */
  readonly onDecided?: (event: ApprovalDecidedEvent) => void;
}

/** One call presented to the gate. */
export interface GatedCall {
  readonly tool: Tool;
  readonly args: Record<string, unknown>;
  readonly context: InvocationContext;
  readonly callId: string;
  /**
   * Whether `callId` is the framework's own tool call id (given by the caller, not generated). It
   * then joins the binding: a replay of the same call (a resumed checkpoint, a saved pause resumed
   * twice) finds the first one's record and is not run again.
   */
  readonly callIdGiven: boolean;
  /**
   * Whether a continuation grant (the call stopped to ask the human and is resumed) is used at once
   * (`run`), or presented again as an approval request the adapter answers by replaying the
   * human's decision (`ask`: LangGraph, whose resume values are matched to `interrupt()` calls by order).
   */
  readonly continuation: 'run' | 'ask';
  readonly approval: ApprovalGrant | string | undefined;
  /** What the tool's policy decided for this call. */
  readonly decision: CallDecision;
}

/** A call let through: by a grant presented (or continued), a standing grant, or its expiry rule. */
export interface GrantedCall {
  readonly granted: true;
  /** The approval the call consumed (the standing grant's own id when one let it through). */
  readonly approvalId: string;
  /** When the approval that let it through expires (epoch ms). */
  readonly expiresAt: number;
  readonly how: ApprovalAuditHow;
  /** The arguments to run instead of the model's: the human edited them (validated). */
  readonly args?: Record<string, unknown>;
  /** The edited arguments as the human gave them, for the model's result. */
  readonly editedArguments?: Record<string, unknown>;
}

/** The envelopes a gate answers with instead of running. */
export type GateAnswer =
  | ApprovalRequiredResult
  | ApprovalRejectedResult
  | ApprovalUsedResult
  | ApprovalExpiredResult
  | ToolResult;

/** What the gate's parts share: the options, and writing audit records. */
export interface GateKit {
  readonly options: ApprovalGateOptions;
  audit(
    event: ApprovalAuditEntry['event'],
    subject: AuditSubject,
    details: AuditDetails,
  ): Promise<void>;
  decided(record: ApprovalRecord, event: Omit<ApprovalDecidedEvent, 'request'>): void;
}

/** The gate's kit over `options`. */
export function gateKit(options: ApprovalGateOptions): GateKit {
  return {
    options,
    audit(event, subject, details) {
      const withArgs =
        options.auditArguments && 'binding' in subject
          ? { arguments: structuredClone(subject.binding.args) }
          : options.auditArguments && 'record' in subject
            ? { arguments: structuredClone(subject.record.arguments) }
            : {};
      // Registered credentials never reach the log: in a reason, a summary or the arguments.
      return options.store.appendAudit(
        Object.freeze(
          redactDeep(auditEntry(event, subject, { ...withArgs, ...details }, Date.now())),
        ),
      );
    },
    decided(record, event) {
      options.onDecided?.({ request: inboxItemOf(record, Date.now()), ...event });
    },
  };
}

/** The answer to a call a human (or a standing rejection) rejected. */
export function rejectedResult(tool: Tool, reason: string): ApprovalRejectedResult {
  return gatewayFailure(
    'approval_rejected',
    `The user rejected this call to ${tool.name}${reason ? `: ${reason}` : '.'} Do not retry it unchanged.`,
    {
      type: 'approval_rejected' as const,
      approval_required: false as const,
      tool_name: tool.name,
      risk_level: tool.policy.riskLevel,
      reason,
    },
  );
}
