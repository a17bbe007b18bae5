import { redactSecrets } from '../util/redact.js';

const MARKER = Symbol.for('ksadk.error');

/**
 * Stable error codes thrown to the programmer. Tool failures meant for the model are never
 * thrown: they come back as `{ ok: false, error_type, error_message }` results instead.
 */
export type KsadkErrorCode =
  /** A configuration value (an option or a `KSADK_*` variable) is not valid. */
  | 'invalid_config'
  /** A tool definition is malformed (bad name, missing schema, `approval` parameter…). */
  | 'invalid_tool'
  /** An approval id is unknown, expired, already decided or used. */
  | 'approval_not_found'
  /** An account or session has too many open approval requests (or the store is full). */
  | 'approval_quota_exceeded'
  /** Arguments a human edited before approving do not fit the tool's schema. */
  | 'invalid_arguments'
  /** A standing grant was asked for a tool whose definition does not allow one. */
  | 'standing_grant_not_allowed'
  /** A standing grant id is unknown, already revoked, or another account's. */
  | 'standing_grant_not_found'
  /** A call needs a credential of the user that is not stored (the model-facing pause). */
  | 'credential_required'
  /** A credential request id is unknown, used, expired, or another account's or user's. */
  | 'credential_not_found'
  /** A sign-in callback, a key or a token exchange was refused: wrong state, denied, failed. */
  | 'credential_refused'
  /** An account holds too many credentials or open credential requests. */
  | 'credential_quota_exceeded'
  /** An account or session has too many calls running to record another (execution records). */
  | 'execution_quota_exceeded'
  /** Something the configuration needs is missing here: `bwrap`, the `e2b` package, a template id… */
  | 'setup'
  /** Every sandbox session allowed is running a command (`maxSessions`); try again later. */
  | 'sandbox_busy'
  /** A saved pause (serialised run state) is malformed, of another version, or for another setup. */
  | 'invalid_state'
  /** A shared store (Redis, PostgreSQL) could not be reached or answered with an error. */
  | 'store_unavailable'
  /** A remote service (the Skill Service) failed, timed out or could not be reached. */
  | 'service_unavailable'
  /** A downloaded package (a skill archive) was refused: unsafe, corrupt, too large, not as listed. */
  | 'invalid_package'
  /** A framework adapter was used in a way its framework cannot support. */
  | 'unsupported'
  /** Anything else raised by KsADK itself. */
  | 'internal';

/** Options for {@link KsadkError}. */
export interface KsadkErrorOptions {
  /** The error that caused this one. */
  cause?: unknown;
  /** Structured, secret-free details for logs and tests. */
  details?: Record<string, unknown>;
}

/**
 * The one error base of KsADK. `code` is stable and meant for programmatic handling;
 * `isInstance` works across duplicate package copies (it checks a `Symbol.for` marker,
 * not the prototype chain).
 *
 * @example
 * ```ts
 * try {
 *   createToolGateway({ approvalMode: 'sometimes' as never });
 * } catch (error) {
 *   if (KsadkError.isInstance(error) && error.code === 'invalid_config') console.error(error.message);
 * }
 * ```
 */
export class KsadkError extends Error {
  /** Brand checked by {@link KsadkError.isInstance}. */
  protected readonly [MARKER] = true;
  /** Stable, machine-readable code. */
  readonly code: KsadkErrorCode;
  /** Structured, secret-free details. */
  readonly details: Record<string, unknown> | undefined;

  constructor(code: KsadkErrorCode, message: string, options: KsadkErrorOptions = {}) {
    // Registered credentials never travel in a thrown message.
    super(
      redactSecrets(message),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'KsadkError';
    this.code = code;
    this.details = options.details;
  }

  /** True when `value` is a {@link KsadkError} from any copy of this package. */
  static isInstance(value: unknown): value is KsadkError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[MARKER] === true
    );
  }
}
