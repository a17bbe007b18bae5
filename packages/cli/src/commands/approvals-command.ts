import {
  type ApprovalInboxItem,
  type ApprovalPrincipal,
  createToolGateway,
  type SharedStores,
  sharedStoresFromEnv,
  type ToolGateway,
} from '@ksadk/core';
import type { CommandContext } from '../command-context.js';
import { describePrincipal, type PrincipalFlags, principalOf } from '../principal-flags.js';
import { EXIT, shown, type Terminal } from '../terminal.js';

interface StoreFlags extends PrincipalFlags {
  store?: string;
  json?: boolean;
}

/** A gateway on the shared store, as the flags' principal; or the exit code of why not. */
async function openGateway(
  flags: StoreFlags,
  { terminal, env }: CommandContext,
): Promise<{ gateway: ToolGateway; principal: ApprovalPrincipal; stores: SharedStores } | number> {
  const principal = principalOf(flags);
  if ('problem' in principal) {
    terminal.note(principal.problem);
    return EXIT.usage;
  }
  const withStore = flags.store ? { ...env, KSADK_APPROVAL_STORE: flags.store } : env;
  const stores = await terminal.progress('connecting to the store', () =>
    sharedStoresFromEnv(withStore),
  );
  if (!stores) {
    terminal.note(
      'No shared store: give --store redis://… or postgres://… (or KSADK_APPROVAL_STORE). A new process has no requests of its own to show.',
    );
    return EXIT.problems;
  }
  try {
    const gateway = createToolGateway({
      env: withStore,
      approvalStore: stores.approvalStore,
      executions: { store: stores.executionStore },
    });
    if (!flags.json)
      terminal.note(
        terminal.paint('dim', `as ${describePrincipal(principal)}, on the ${stores.kind} store`),
      );
    return { gateway, principal, stores };
  } catch (error) {
    await stores.close();
    throw error;
  }
}

/** `--limit` as a number of 1–500, or `undefined` for anything else. */
const limitOf = (value: string | undefined): number | undefined => {
  const limit = Number(value ?? 50);
  return Number.isInteger(limit) && limit >= 1 && limit <= 500 ? limit : undefined;
};

/** A usage problem: said, exit 2. */
const usage = (context: CommandContext, problem: string): number => {
  context.terminal.note(problem);
  return EXIT.usage;
};

/** One request as a line of the list. */
function requestLine(terminal: Terminal, item: ApprovalInboxItem): string {
  const status = terminal.paint(
    item.status === 'pending'
      ? 'warn'
      : item.status === 'approved' || item.status === 'consumed'
        ? 'ok'
        : 'bad',
    item.status,
  );
  const who = `${item.account_id || '(default)'}${item.user_id ? `/${item.user_id}` : ''}`;
  return `${shown(item.id)} ${status} ${terminal.paint('bold', item.tool_name)} ${shown(item.risk_level)} ${terminal.paint('dim', `${who} · session ${item.session_id || '—'} · ${item.created_at}`)}`;
}

/** `ksadk approvals list`. */
export async function listCommand(
  options: StoreFlags & { status: string; session?: string; tool?: string; limit?: string },
  context: CommandContext,
): Promise<number> {
  const limit = limitOf(options.limit);
  if (limit === undefined) return usage(context, '--limit must be 1–500.');
  const opened = await openGateway(options, context);
  if (typeof opened === 'number') return opened;
  const { gateway, principal, stores } = opened;
  try {
    const page = await gateway.listApprovalRequests({
      principal,
      status: options.status as 'pending',
      limit,
      ...(options.session ? { sessionId: options.session } : {}),
      ...(options.tool ? { toolName: options.tool } : {}),
    });
    if (options.json)
      context.terminal.json({
        principal: describePrincipal(principal),
        items: page.items,
        nextCursor: page.nextCursor ?? null,
      });
    else if (page.items.length === 0)
      context.terminal.line(`No ${options.status === 'all' ? '' : `${options.status} `}requests.`);
    else for (const item of page.items) context.terminal.line(requestLine(context.terminal, item));
    return EXIT.ok;
  } finally {
    await stores.close();
  }
}

/** `ksadk approvals show|approve|reject|revoke <id>`. */
export async function decideCommand(
  action: 'show' | 'approve' | 'reject' | 'revoke',
  id: string,
  options: StoreFlags & { reason?: string; always?: boolean; args?: string },
  context: CommandContext,
): Promise<number> {
  let edited: Record<string, unknown> | undefined;
  if (options.args !== undefined) {
    try {
      edited = JSON.parse(options.args) as Record<string, unknown>;
    } catch {
      edited = undefined;
    }
    if (typeof edited !== 'object' || edited === null || Array.isArray(edited)) {
      context.terminal.note('--args must be a JSON object.');
      return EXIT.usage;
    }
  }
  const opened = await openGateway(options, context);
  if (typeof opened === 'number') return opened;
  const { gateway, principal, stores } = opened;
  const { terminal } = context;
  try {
    if (action === 'revoke') {
      const grant = await gateway.revokeStandingGrant(id, {
        principal,
        ...(options.reason ? { reason: options.reason } : {}),
      });
      if (options.json) terminal.json({ grant });
      else
        terminal.line(
          `${terminal.paint('ok', '✓')} revoked ${shown(grant.id)} (${shown(grant.toolName)})`,
        );
      return EXIT.ok;
    }
    const before = await gateway.approvalStatus(id, { principal });
    if (!before) {
      terminal.note(`No request ${shown(id)} for ${shown(describePrincipal(principal))}.`);
      return EXIT.problems;
    }
    if (action === 'approve')
      await gateway.approve(id, {
        principal,
        ...(edited ? { args: edited } : {}),
        ...(options.always ? { always: 'session' as const } : {}),
        ...(options.reason ? { reason: options.reason } : {}),
      });
    if (action === 'reject')
      await gateway.reject(id, {
        principal,
        ...(options.always ? { always: 'session' as const } : {}),
        ...(options.reason ? { reason: options.reason } : {}),
      });
    const item =
      action === 'show' ? before : ((await gateway.approvalStatus(id, { principal })) ?? before);
    if (options.json) terminal.json({ item });
    else {
      terminal.line(requestLine(terminal, item));
      if (item.why) terminal.line(`why: ${shown(item.why)}`);
      if (item.summary) terminal.line(`what it does: ${shown(item.summary)}`);
      terminal.line(`side effects: ${shown(item.side_effects.join(', ') || 'none declared')}`);
      terminal.line(`arguments: ${shown(JSON.stringify(item.arguments, null, 2))}`);
      if (item.edited_arguments)
        terminal.line(`edited to: ${shown(JSON.stringify(item.edited_arguments, null, 2))}`);
      if (item.decided_by)
        terminal.line(
          `decided by ${shown(item.decided_by)} at ${item.decided_at}${item.reason ? `: ${shown(item.reason)}` : ''}`,
        );
    }
    return EXIT.ok;
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (
      code === 'approval_not_found' ||
      code === 'standing_grant_not_found' ||
      code === 'invalid_arguments'
    ) {
      terminal.note(shown(error instanceof Error ? error.message : String(error)));
      return EXIT.problems;
    }
    throw error;
  } finally {
    await stores.close();
  }
}

/** `ksadk approvals audit`. */
export async function auditCommand(
  options: StoreFlags & { since?: string; limit?: string },
  context: CommandContext,
): Promise<number> {
  const since =
    options.since === undefined
      ? undefined
      : /^\d+$/.test(options.since)
        ? Number(options.since)
        : Date.parse(options.since);
  if (since !== undefined && Number.isNaN(since))
    return usage(context, '--since must be an ISO date or epoch milliseconds.');
  const limit = limitOf(options.limit);
  if (limit === undefined) return usage(context, '--limit must be 1–500.');
  const opened = await openGateway(options, context);
  if (typeof opened === 'number') return opened;
  const { gateway, principal, stores } = opened;
  try {
    const page = await gateway.auditLog({
      principal,
      limit,
      ...(since !== undefined ? { since } : {}),
    });
    if (options.json)
      context.terminal.json({
        principal: describePrincipal(principal),
        items: page.items,
        nextCursor: page.nextCursor ?? null,
      });
    else
      for (const entry of page.items)
        context.terminal.line(
          `${new Date(entry.at).toISOString()} ${context.terminal.paint('bold', entry.event)}${entry.how ? ` (${entry.how})` : ''} ${shown(`${entry.toolName} ${entry.approvalId ?? entry.grantId ?? ''}${entry.by ? ` by ${entry.by}` : ''}${entry.reason ? `: ${entry.reason}` : ''}`)}`,
        );
    return EXIT.ok;
  } finally {
    await stores.close();
  }
}
