import { type ApprovalInboxItem, KsadkError } from '@ksadk/core';
import { failure, json, queryParam } from '../http-kit.js';
import { previewJson } from '../json-preview.js';
import {
  answerError,
  EDIT_BODY,
  limitOf,
  type Route,
  type RouteContext,
  stringField,
} from './route-kit.js';

const STATUSES = new Set(['pending', 'approved', 'rejected', 'consumed', 'expired', 'all']);
/** What approval ids look like: anything else is not found without asking the store. */
const APPROVAL_ID = /^appr_[0-9a-f]{32}$/;
/** Characters of a request's arguments a list row carries. */
const ROW_PREVIEW_CHARS = 240;

/** An inbox row: the request without its (possibly huge) arguments, with a short preview of them. */
function rowOf(item: ApprovalInboxItem): Record<string, unknown> {
  const { arguments: args, edited_arguments: edited, ...rest } = item;
  const preview = previewJson(args, ROW_PREVIEW_CHARS);
  return { ...rest, arguments_preview: preview.text, edited: edited !== undefined };
}

/** `always` as the page sends it: absent, or "for this session". */
function alwaysOf(body: Record<string, unknown>): { always?: 'session' } {
  if (body['always'] === undefined || body['always'] === false) return {};
  if (body['always'] === 'session' || body['always'] === true) return { always: 'session' };
  throw new KsadkError('invalid_arguments', "always must be 'session' when given.");
}

/** The request of a decision, which must be the principal's own. */
async function requestOf(context: RouteContext): Promise<ApprovalInboxItem | Response> {
  const id = context.params[0] ?? '';
  if (!APPROVAL_ID.test(id)) return failure(404, 'approval_not_found', 'No such request.');
  const item = await context.services.gateway.approvalStatus(id, {
    principal: context.principal,
  });
  return item ?? failure(404, 'approval_not_found', 'No such request.');
}

/** The approvals inbox: list, one request, approve (edited, for the session), reject, standing grants. */
export const approvalRoutes: readonly Route[] = [
  {
    method: 'GET',
    path: /^approvals$/,
    async handle({ url, principal, services }) {
      const status = queryParam(url, 'status') ?? 'pending';
      if (!STATUSES.has(status))
        return failure(
          400,
          'invalid_arguments',
          `status must be one of ${[...STATUSES].join(', ')}.`,
        );
      const session = queryParam(url, 'session');
      const tool = queryParam(url, 'tool');
      const cursor = queryParam(url, 'cursor', 2000);
      try {
        const page = await services.gateway.listApprovalRequests({
          principal,
          status: status as 'pending',
          limit: limitOf(url, 100, 500),
          ...(session ? { sessionId: session } : {}),
          ...(tool ? { toolName: tool } : {}),
          ...(cursor ? { cursor } : {}),
        });
        return json({ items: page.items.map(rowOf), nextCursor: page.nextCursor ?? null });
      } catch (error) {
        return answerError(error);
      }
    },
  },
  {
    method: 'GET',
    path: /^approvals\/([^/]+)$/,
    async handle(context) {
      try {
        const item = await requestOf(context);
        return item instanceof Response ? item : json({ item });
      } catch (error) {
        return answerError(error);
      }
    },
  },
  {
    method: 'POST',
    path: /^approvals\/([^/]+)\/approve$/,
    async handle(context) {
      try {
        // The request first: a made-up id costs no body read.
        const item = await requestOf(context);
        if (item instanceof Response) return item;
        const body = await context.body(EDIT_BODY);
        const edited = body['args'];
        if (
          edited !== undefined &&
          (typeof edited !== 'object' || edited === null || Array.isArray(edited))
        )
          throw new KsadkError('invalid_arguments', 'args must be a JSON object.');
        const tool = context.services.tools.get(item.tool_name);
        await context.services.gateway.approve(item.id, {
          principal: context.principal,
          ...(edited !== undefined ? { args: edited as Record<string, unknown> } : {}),
          ...(edited !== undefined && tool ? { tool } : {}),
          ...alwaysOf(body),
          ...(stringField(body, 'reason', 500) ? { reason: stringField(body, 'reason', 500) } : {}),
        });
        context.services.events.changed(context.principal);
        return json({
          item: await context.services.gateway.approvalStatus(item.id, {
            principal: context.principal,
          }),
        });
      } catch (error) {
        return answerError(error);
      }
    },
  },
  {
    method: 'POST',
    path: /^approvals\/([^/]+)\/reject$/,
    async handle(context) {
      try {
        const item = await requestOf(context);
        if (item instanceof Response) return item;
        const body = await context.body();
        const reason = stringField(body, 'reason', 500);
        await context.services.gateway.reject(item.id, {
          principal: context.principal,
          ...(reason ? { reason } : {}),
          ...alwaysOf(body),
        });
        context.services.events.changed(context.principal);
        return json({
          item: await context.services.gateway.approvalStatus(item.id, {
            principal: context.principal,
          }),
        });
      } catch (error) {
        return answerError(error);
      }
    },
  },
  {
    method: 'GET',
    path: /^grants$/,
    async handle({ url, principal, services }) {
      try {
        const cursor = queryParam(url, 'cursor', 2000);
        const page = await services.gateway.listStandingGrants({
          principal,
          limit: limitOf(url, 100, 500),
          ...(cursor ? { cursor } : {}),
        });
        return json({ items: page.items, nextCursor: page.nextCursor ?? null });
      } catch (error) {
        return answerError(error);
      }
    },
  },
  {
    method: 'POST',
    path: /^grants\/([^/]{1,100})\/revoke$/,
    async handle(context) {
      try {
        const body = await context.body();
        const reason = stringField(body, 'reason', 500);
        const grant = await context.services.gateway.revokeStandingGrant(context.params[0] ?? '', {
          principal: context.principal,
          ...(reason ? { reason } : {}),
        });
        context.services.events.changed(context.principal);
        return json({ grant });
      } catch (error) {
        return answerError(error);
      }
    },
  },
];
