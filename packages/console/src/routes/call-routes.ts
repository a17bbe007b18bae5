import { type ApprovalAuditEntry, readPersistedOutput } from '@ksadk/core';
import { failure, headersFor, json, queryParam } from '../http-kit.js';
import { answerError, limitOf, type Route, type RouteContext } from './route-kit.js';

const OUTCOMES = new Set(['running', 'succeeded', 'failed', 'unknown']);
const EXECUTION_ID = /^exec_[0-9a-f]{32}$/;
/** Audit records looked through for a call's approval trail. */
const MAX_TRAIL_SCAN = 500;

/**
 * How a saved output is sent: images and sounds of the formats browsers show safely as
 * themselves, text as plain text, and anything else (SVG and HTML included) as a download.
 */
const OUTPUT_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  txt: 'text/plain; charset=utf-8',
  json: 'text/plain; charset=utf-8',
  md: 'text/plain; charset=utf-8',
};

/** The call's approval trail: every audit record of its request, oldest first. */
async function trailOf(context: RouteContext, approvalId: string, since: number) {
  const entries: ApprovalAuditEntry[] = [];
  let cursor: string | undefined;
  let scanned = 0;
  do {
    const page = await context.services.gateway.auditLog({
      principal: context.principal,
      since,
      limit: 100,
      ...(cursor ? { cursor } : {}),
    });
    scanned += page.items.length;
    entries.push(...page.items.filter((entry) => entry.approvalId === approvalId));
    cursor = page.nextCursor;
  } while (cursor && scanned < MAX_TRAIL_SCAN);
  return entries.reverse();
}

/** The call, if it is the principal's. */
async function callOf(context: RouteContext) {
  const id = context.params[0] ?? '';
  if (!EXECUTION_ID.test(id)) return undefined;
  return context.services.gateway.execution(id, { principal: context.principal });
}

/** The calls timeline: list, one call with its arguments, result and approval trail, its saved outputs. */
export const callRoutes: readonly Route[] = [
  {
    method: 'GET',
    path: /^calls$/,
    async handle({ url, principal, services }) {
      const outcome = queryParam(url, 'outcome');
      if (outcome && !OUTCOMES.has(outcome))
        return failure(
          400,
          'invalid_arguments',
          `outcome must be one of ${[...OUTCOMES].join(', ')}.`,
        );
      const session = queryParam(url, 'session');
      const tool = queryParam(url, 'tool');
      const cursor = queryParam(url, 'cursor', 2000);
      try {
        const page = await services.gateway.executions({
          principal,
          limit: limitOf(url, 100, 500),
          ...(session ? { sessionId: session } : {}),
          ...(tool ? { toolName: tool } : {}),
          ...(outcome ? { outcome: outcome as 'running' } : {}),
          ...(cursor ? { cursor } : {}),
        });
        return json({ items: page.items, nextCursor: page.nextCursor ?? null });
      } catch (error) {
        return answerError(error);
      }
    },
  },
  {
    method: 'GET',
    path: /^calls\/([^/]+)$/,
    async handle(context) {
      try {
        const call = await callOf(context);
        if (!call) return failure(404, 'call_not_found', 'No such call.');
        const approvalId = call.approvalId;
        const [approval, trail] = approvalId
          ? await Promise.all([
              context.services.gateway.approvalStatus(approvalId, { principal: context.principal }),
              trailOf(context, approvalId, call.startedAt - 24 * 3_600_000),
            ])
          : [undefined, []];
        return json({ call, approval: approval ?? null, trail });
      } catch (error) {
        return answerError(error);
      }
    },
  },
  {
    method: 'GET',
    path: /^calls\/([^/]+)\/output$/,
    async handle(context) {
      try {
        const handle = context.url.searchParams.get('handle') ?? '';
        const call = await callOf(context);
        // Only a handle the call itself returned, read from the call's own account and session.
        const named =
          call !== undefined &&
          handle.startsWith('tool-results://') &&
          handle.length <= 1024 &&
          (call.resultHandle === handle ||
            (call.result !== undefined &&
              JSON.stringify(call.result).includes(JSON.stringify(handle))));
        if (!call || !named) return failure(404, 'output_not_found', 'No such output.');
        const bytes = await readPersistedOutput(handle, context.services.gateway.budget, {
          accountId: call.accountId,
          ...(call.userId ? { userId: call.userId } : {}),
          ...(call.sessionId ? { sessionId: call.sessionId } : {}),
        });
        if (!bytes) return failure(404, 'output_not_found', 'No such output.');
        const extension = /\.([a-z0-9]+)$/i.exec(handle)?.[1]?.toLowerCase() ?? '';
        const type = OUTPUT_TYPES[extension];
        return new Response(new Uint8Array(bytes), {
          headers: headersFor(
            type ?? 'application/octet-stream',
            type ? {} : { 'content-disposition': 'attachment' },
          ),
        });
      } catch (error) {
        return answerError(error);
      }
    },
  },
];
