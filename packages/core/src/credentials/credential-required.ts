import type { CredentialKind } from './credential-spec.js';

/** What a call asks the host for when the user's credential is missing: no secret in it. */
export interface CredentialRequest {
  /** `creq_` + 32 hex characters: what the host answers with `provideCredential`. */
  id: string;
  /** The credential's id, as the tool declares it (`github`). */
  credential_id: string;
  kind: CredentialKind;
  scopes: string[];
  tool_name: string;
  /** Where to send the user to sign in (`oauth2`): carries `state` and the PKCE challenge. */
  authorization_url?: string;
  /** What the credential is for, in the tool's words. */
  description?: string;
  /** ISO 8601. */
  expires_at: string;
}

/** The call needs the user's credential; nothing ran. The host signs the user in and resumes. */
export interface CredentialRequiredResult {
  ok: false;
  type: 'credential_required';
  error_type: 'credential_required';
  error_message: string;
  credential_request: CredentialRequest;
}

/** Whether `result` is a {@link CredentialRequiredResult}. */
export function isCredentialRequired(result: unknown): result is CredentialRequiredResult {
  return (
    typeof result === 'object' &&
    result !== null &&
    (result as { type?: unknown }).type === 'credential_required' &&
    typeof (result as { credential_request?: unknown }).credential_request === 'object'
  );
}

// Private to this module: a tool cannot forge the pause by throwing an object with the mark.
const PAUSE = Symbol('ksadk.credentialRequired');

/**
 * Thrown by `context.credential(id)` when the credential is not stored: it stops the tool, and
 * the gateway answers the call with its {@link CredentialRequiredResult}. A tool lets it pass.
 */
export class CredentialRequiredSignal extends Error {
  readonly [PAUSE] = true;
  constructor(readonly result: CredentialRequiredResult) {
    super(result.error_message);
    this.name = 'CredentialRequiredSignal';
  }
  /** Whether `value` is such a signal (made by this copy of the package). */
  static isInstance(value: unknown): value is CredentialRequiredSignal {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as { [PAUSE]?: unknown })[PAUSE] === true
    );
  }
}

/** What a tool is handed: the value to send (token or key) and what it is good for. */
export interface ToolCredential {
  readonly kind: CredentialKind;
  /** The access token, bearer token or API key. Registered with the redactor. */
  readonly token: string;
  readonly scopes: readonly string[];
  /** When the access token expires (epoch ms), if it does. */
  readonly expiresAt?: number;
}
