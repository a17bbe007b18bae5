import type { ApprovalPrincipal, ToolGateway } from '../gateway-types.js';
import type { ApprovalDecision } from './decision.js';

/** Options for {@link waitForApprovalDecision}. */
export interface WaitForApprovalDecisionOptions {
  /** How long to wait for someone to decide. @default 300000 (5 minutes) */
  readonly waitMs?: number;
  /** Stops waiting (answers `cancelled`). */
  readonly signal?: AbortSignal;
  /** Told every `progressEveryMs` while nobody has decided, with the time waited so far. */
  readonly onWaiting?: (waitedMs: number) => void;
  /** @default 5000 */
  readonly progressEveryMs?: number;
  /** Whose request it is. @default the current invocation context's account and user */
  readonly principal?: ApprovalPrincipal;
}

/** How a wait ended without a decision. */
export type UndecidedApproval = 'timed_out' | 'expired' | 'cancelled';

/** Polling the approval store while waiting: from this interval, doubling up to the next. */
const FIRST_POLL_MS = 100;
const MAX_POLL_MS = 1000;

const delay = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * Waits for a decision made elsewhere — in the console, another instance's inbox, a chat button
 * calling `gateway.approve` — on one pending request, and gives it back as a decision to resume
 * the paused call with: the host's own approval repeated (with the arguments it edited, if any),
 * or a rejection (the call then answers `approval_rejected` with the reason given). It never
 * decides anything itself: only what the store already holds is repeated. Ends `timed_out` after
 * `waitMs`, `expired` when the request's deadline passed, `cancelled` on the signal.
 *
 * @example
 * ```ts
 * const decision = await waitForApprovalDecision(gateway, pending.approvalRequest.id);
 * result = await result.resume({ [pending.callId]: typeof decision === 'string' ? 'reject' : decision });
 * ```
 */
export async function waitForApprovalDecision(
  gateway: ToolGateway,
  requestId: string,
  options: WaitForApprovalDecisionOptions = {},
): Promise<ApprovalDecision | UndecidedApproval> {
  const { signal, onWaiting, principal } = options;
  const waitMs = options.waitMs ?? 300_000;
  const progressEveryMs = options.progressEveryMs ?? 5000;
  const started = Date.now();
  let poll = FIRST_POLL_MS;
  let nextProgress = started + progressEveryMs;
  while (!signal?.aborted) {
    const now = Date.now();
    if (now - started >= waitMs) return 'timed_out';
    const status = await gateway
      .approvalStatus(requestId, principal ? { principal } : {})
      .catch(() => undefined);
    if (status?.status === 'approved')
      return status.edited_arguments
        ? { type: 'approve', args: status.edited_arguments }
        : { type: 'approve' };
    if (status?.status === 'expired') return 'expired';
    // Rejected, used, or gone: the call itself answers why nothing runs.
    if (status && status.status !== 'pending') return { type: 'reject' };
    if (now >= nextProgress) {
      nextProgress = now + progressEveryMs;
      try {
        onWaiting?.(now - started);
      } catch {
        // A listener that throws changes nothing.
      }
    }
    await delay(Math.min(poll, waitMs - (now - started)), signal);
    poll = Math.min(poll * 2, MAX_POLL_MS);
  }
  return 'cancelled';
}
