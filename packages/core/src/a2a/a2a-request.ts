import { randomUUID } from 'node:crypto';
import type { SendMessageRequest } from '@a2a-js/sdk';
import { getInvocationContextOrEmpty } from '../context/invocation-context.js';
import type { Sdk } from './a2a-connection.js';
import type { A2AResult } from './a2a-result.js';
import { a2aFailure } from './failure.js';

/** Options of one request. */
export interface A2ASendOptions {
  contextId?: string;
  taskId?: string;
  /** Extra request metadata (KsADK adds `invocation_id`, `account_id`, `session_id`). */
  metadata?: Record<string, unknown>;
  signal?: AbortSignal;
}

/**
 * The `SendMessage` request for `text`: one user text part, the caller's metadata plus the
 * invocation context (`invocation_id`, `account_id`, `session_id`), plain text or JSON back.
 */
export function messageRequest(sdk: Sdk, text: string, send: A2ASendOptions): SendMessageRequest {
  const context = getInvocationContextOrEmpty();
  const metadata = {
    ...(send.metadata ?? {}),
    ...(context.invocationId ? { invocation_id: context.invocationId } : {}),
    ...(context.accountId ? { account_id: context.accountId } : {}),
    ...(context.sessionId ? { session_id: context.sessionId } : {}),
  };
  return {
    tenant: '',
    message: {
      messageId: randomUUID(),
      contextId: send.contextId ?? '',
      taskId: send.taskId ?? '',
      role: sdk.Role.ROLE_USER,
      parts: [
        {
          content: { $case: 'text' as const, value: text },
          metadata: undefined,
          filename: '',
          mediaType: 'text/plain',
        },
      ],
      metadata,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: {
      acceptedOutputModes: ['text/plain', 'application/json'],
      taskPushNotificationConfig: undefined,
      returnImmediately: false,
    },
    metadata,
  };
}

/** A `request_too_large` failure when `text` is over `maxBytes` in UTF-8, else `undefined`. */
export const requestTooLarge = (text: string, maxBytes: number): A2AResult | undefined =>
  Buffer.byteLength(text, 'utf8') > maxBytes
    ? a2aFailure('request_too_large', `The message is larger than ${maxBytes} bytes.`, {
        state: 'unknown' as const,
        output: '',
        task_id: undefined,
        context_id: undefined,
      })
    : undefined;

/** The request's signal: the caller's, if any, and `timeoutMs` from now. */
export const requestSignal = (send: A2ASendOptions, timeoutMs: number): AbortSignal =>
  send.signal
    ? AbortSignal.any([send.signal, AbortSignal.timeout(timeoutMs)])
    : AbortSignal.timeout(timeoutMs);
