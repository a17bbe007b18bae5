import {
  type ApprovalRequest,
  type ToolGateway,
  type UndecidedApproval,
  waitForApprovalDecision,
} from '@ksadk/core';
import { type ApprovalPause, PAUSED, visibleText } from '@ksadk/core/adapter';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpRequestContext } from './request-context.js';

/** How a gated call is decided over MCP. */
export interface McpApprovalOptions {
  /**
   * Ask through the client's elicitation (form mode) when it declared it. With `false`, every
   * decision is made through the gateway's API (the inbox, `gateway.approve`). @default true
   */
  readonly elicitation?: boolean;
  /** How long a call waits for a decision made through the gateway's API. @default 300000 (5 min) */
  readonly waitMs?: number;
  /** How often a waiting call sends a progress notification (when the client asked for progress). @default 5000 */
  readonly progressEveryMs?: number;
}

/** How the wait for a decision made elsewhere ended without one. */
export type Undecided = UndecidedApproval;

/** Arguments shown in the question: this many characters of JSON in all, each key its share. */
const MAX_SHOWN_ARGS = 4000;
/** At least this many characters of each value, however many keys there are. */
const MIN_SHOWN_VALUE = 120;
/** At most this many keys named one by one; the rest are counted. */
const MAX_SHOWN_KEYS = 40;

/**
 * What a model's arguments show in the dialog: every character that would change how it reads
 * rather than what it says as its `\uXXXX` escape (see `visibleText`).
 */
const visible = visibleText;

/**
 * The arguments as the human reads them: every top-level key (up to {@link MAX_SHOWN_KEYS}), each
 * value's JSON cut to its share of the space, so a huge first value cannot hide a later one.
 */
function shownArguments(args: Record<string, unknown>, digest: string): string {
  const keys = Object.keys(args);
  if (keys.length === 0) return '{}';
  const named = keys.slice(0, MAX_SHOWN_KEYS);
  const share = Math.max(MIN_SHOWN_VALUE, Math.floor(MAX_SHOWN_ARGS / named.length));
  let cut = false;
  const lines = named.map((key) => {
    let json = JSON.stringify(args[key], null, 2) ?? 'undefined';
    if (json.length > share) {
      json = `${json.slice(0, share)}… (${json.length} characters)`;
      cut = true;
    }
    return `  ${visible(JSON.stringify(key))}: ${visible(json).replace(/\n/g, '\n  ')}`;
  });
  if (keys.length > named.length) {
    lines.push(`  … and ${keys.length - named.length} more keys`);
    cut = true;
  }
  return `{\n${lines.join(',\n')}\n}${cut ? `\n(Shortened; the call runs with exactly the arguments of digest ${digest}.)` : ''}`;
}

/** What the human reads in the client's elicitation dialog: tool, risk, why, side effects, arguments. */
export function questionOf(request: ApprovalRequest): string {
  const lines = [
    `Allow ${visible(request.tool_name)}? Risk: ${request.risk_level}.`,
    ...(request.why ? [`Why it asks: ${visible(request.why)}`] : []),
    ...(request.summary ? [`What it does: ${visible(request.summary)}`] : []),
    `Side effects: ${request.side_effects.length > 0 ? visible(request.side_effects.join(', ')) : 'none declared'}.`,
    'Arguments:',
    shownArguments(request.arguments, request.args_digest),
  ];
  return lines.join('\n');
}

/** The answer form: approve or decline is the dialog's accept/decline; these are extras. */
const ANSWER_SCHEMA = {
  type: 'object',
  properties: {
    always: {
      type: 'boolean',
      title: 'Also allow the next calls of this tool in this session',
      default: false,
    },
    reason: { type: 'string', title: 'Reason (optional, shown to the model)', maxLength: 500 },
  },
} as const;

/** Whether the client can answer a form elicitation. */
function canElicit(context: McpRequestContext): boolean {
  const elicitation = context.clientCapabilities()?.elicitation as
    | { form?: unknown; url?: unknown }
    | undefined;
  if (!elicitation) return false;
  // An empty `elicitation: {}` is form mode (the spec's default before modes were named).
  return elicitation.form !== undefined || elicitation.url === undefined;
}

/** The human's decision through the client's elicitation, or `undefined` when the client failed to ask. */
async function elicitDecision(
  context: McpRequestContext,
  request: ApprovalRequest,
): Promise<unknown> {
  let answer: Awaited<ReturnType<typeof ElicitResultSchema.parse>>;
  try {
    answer = await context.sendRequest(
      {
        method: 'elicitation/create',
        params: { mode: 'form', message: questionOf(request), requestedSchema: ANSWER_SCHEMA },
      },
      ElicitResultSchema,
      { signal: context.signal, timeout: context.approvals.waitMs },
    );
  } catch {
    return undefined;
  }
  const content = (answer.content ?? {}) as { always?: unknown; reason?: unknown };
  const reason =
    typeof content.reason === 'string' && content.reason.trim() !== ''
      ? content.reason.slice(0, 500)
      : undefined;
  if (answer.action === 'accept')
    return content.always === true ? { type: 'approve', always: 'session' } : 'approve';
  return {
    type: 'reject',
    reason:
      reason ??
      (answer.action === 'decline' ? 'The user declined.' : 'The user dismissed the request.'),
  };
}

/**
 * Waits for a decision made through the gateway's API (the approvals inbox, `gateway.approve`),
 * sending progress every few seconds, within what is left of the call's one wait.
 */
function waitForDecision(
  gateway: ToolGateway,
  context: McpRequestContext,
  request: ApprovalRequest,
  started: number,
): Promise<unknown | Undecided> {
  const { waitMs, progressEveryMs } = context.approvals;
  const waited = Date.now() - started;
  return waitForApprovalDecision(gateway, request.id, {
    waitMs: Math.max(waitMs - waited, 0),
    signal: context.signal,
    progressEveryMs,
    onWaiting: (ms) => {
      const seconds = Math.round((waited + ms) / 1000);
      context.progress(
        seconds,
        Math.round(waitMs / 1000),
        `Waiting for the user to approve ${request.tool_name} (${seconds} s).`,
      );
    },
  });
}

/**
 * The MCP half of the approval round trip: ask through the client's elicitation when it can,
 * otherwise wait for a decision made through the gateway's API. Returns the decision for the
 * gateway's round trip, or {@link PAUSED} (with why in `undecided`) when nobody decided.
 */
export async function decideOverMcp(
  gateway: ToolGateway,
  context: McpRequestContext,
  pause: ApprovalPause,
  undecided: { reason?: Undecided },
): Promise<unknown> {
  const request = pause.approval_request;
  // One wait in all: a client that never answers its dialog leaves only the rest of it.
  const started = Date.now();
  if (context.approvals.elicitation && canElicit(context)) {
    const decision = await elicitDecision(context, request);
    if (decision !== undefined) return decision;
  }
  const decided = await waitForDecision(gateway, context, request, started);
  if (decided === 'timed_out' || decided === 'expired' || decided === 'cancelled') {
    undecided.reason = decided;
    return PAUSED;
  }
  return decided;
}
