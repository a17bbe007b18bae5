import type { ConsolePrincipal } from '../console-auth.js';
import { failure, json } from '../http-kit.js';
import {
  answerError,
  decodedParam,
  type Route,
  type RouteContext,
  stringField,
} from './route-kit.js';

const CREDENTIAL_REQUEST_ID = /^creq_[0-9a-f]{32}$/;
/** Failed calls looked through for the sign-ins they are waiting for. */
const SIGN_IN_SCAN = 200;
/** Sign-ins listed at most. */
const MAX_SIGN_INS = 50;

/**
 * The sign-ins the principal's recent calls are waiting for: each call that paused with
 * `credential_required` (its record keeps that answer), newest first, one per request, unexpired.
 */
async function waitingSignIns(context: RouteContext): Promise<Record<string, unknown>[]> {
  const { gateway } = context.services;
  const page = await gateway.executions({
    principal: context.principal,
    outcome: 'failed',
    limit: SIGN_IN_SCAN,
  });
  const paused = page.items
    .filter((record) => record.errorType === 'credential_required')
    .slice(0, MAX_SIGN_INS);
  const details = await Promise.all(
    paused.map((record) => gateway.execution(record.id, { principal: context.principal })),
  );
  const seen = new Set<string>();
  const now = Date.now();
  const requests: Record<string, unknown>[] = [];
  for (const detail of details) {
    const request = detail?.result?.['credential_request'] as Record<string, unknown> | undefined;
    const id = request?.['id'];
    if (typeof id !== 'string' || !CREDENTIAL_REQUEST_ID.test(id) || seen.has(id)) continue;
    if (Date.parse(String(request?.['expires_at'])) <= now) continue;
    seen.add(id);
    requests.push({ ...request, tool_call_id: detail?.callId, session_id: detail?.sessionId });
  }
  return requests;
}

/**
 * Whose credentials a principal may see and act on: a person's — an account and a user. An
 * account-level principal or an admin acts for nobody in particular, and a credential is a user's
 * own: planting a key into another user's sign-in, or listing everyone's, is not for them.
 */
const personal = (principal: ConsolePrincipal): boolean =>
  !('admin' in principal) && principal.userId !== undefined;

const notPersonal = () =>
  failure(403, 'not_a_user', 'Credentials are a user’s own: sign in as the user.');

/** Connected accounts: the principal's credentials, revoking one, completing a pending sign-in. */
export const accountRoutes: readonly Route[] = [
  {
    method: 'GET',
    path: /^credentials$/,
    async handle({ principal, services }) {
      if (!personal(principal)) return json({ personal: false, credentials: [] });
      try {
        return json({
          personal: true,
          credentials: await services.gateway.listCredentials({ principal }),
        });
      } catch (error) {
        return answerError(error);
      }
    },
  },
  {
    method: 'GET',
    path: /^credential-requests$/,
    async handle(context) {
      if (!personal(context.principal)) return json({ requests: [] });
      try {
        return json({ requests: await waitingSignIns(context) });
      } catch (error) {
        return answerError(error);
      }
    },
  },
  {
    method: 'POST',
    path: /^credentials\/([^/]{1,200})\/revoke$/,
    async handle(context) {
      if (!personal(context.principal)) return notPersonal();
      try {
        await context.body();
        const id = decodedParam(context, 0);
        const revoked =
          id !== undefined &&
          (await context.services.gateway.revokeCredential(id, { principal: context.principal }));
        if (!revoked) return failure(404, 'credential_not_found', 'No such credential.');
        return json({ revoked: true });
      } catch (error) {
        return answerError(error);
      }
    },
  },
  {
    method: 'POST',
    path: /^credential-requests\/([^/]+)$/,
    async handle(context) {
      if (!personal(context.principal)) return notPersonal();
      try {
        const id = context.params[0] ?? '';
        if (!CREDENTIAL_REQUEST_ID.test(id))
          return failure(404, 'credential_not_found', 'No such sign-in request.');
        const body = await context.body();
        const callbackUrl = stringField(body, 'callbackUrl', 8192);
        const apiKey = stringField(body, 'apiKey', 8192);
        const token = stringField(body, 'token', 8192);
        const given = [callbackUrl, apiKey, token].filter((value) => value !== undefined);
        if (given.length !== 1)
          return failure(
            400,
            'invalid_arguments',
            'Give exactly one of callbackUrl, apiKey, token.',
          );
        const credential = await context.services.gateway.provideCredential(
          id,
          callbackUrl !== undefined
            ? { callbackUrl }
            : apiKey !== undefined
              ? { apiKey }
              : { token: token! },
          { principal: context.principal },
        );
        context.services.events.changed(context.principal);
        return json({ credential });
      } catch (error) {
        return answerError(error);
      }
    },
  },
];
