import { KsadkError, type Tool, type ToolGateway } from '@ksadk/core';
import type { McpToolset } from '@ksadk/core/mcp';
import type { SkillLibrary } from '@ksadk/core/skills';
import type { ConsolePrincipal } from '../console-auth.js';
import type { ConsoleEvents } from '../console-events.js';
import { BodyError, failure } from '../http-kit.js';

/** What the console's routes work with: the gateway, and what the host told it to show. */
export interface ConsoleServices {
  readonly gateway: ToolGateway;
  /** The agent's tools by name: edited arguments are checked against them before approval. */
  readonly tools: ReadonlyMap<string, Tool>;
  readonly skills: SkillLibrary | undefined;
  readonly mcpServers: readonly McpToolset[];
  readonly events: ConsoleEvents;
  readonly maxBodyBytes: number;
  /**
   * Whether a principal sees what belongs to the whole host (MCP servers' stderr): the local
   * user, and `{ admin: true }`.
   */
  operator(principal: ConsolePrincipal): boolean;
}

/** One API request, signed in. */
export interface RouteContext {
  readonly request: Request;
  readonly url: URL;
  readonly principal: ConsolePrincipal;
  /** The path's captured parts. */
  readonly params: readonly string[];
  readonly services: ConsoleServices;
  /**
   * The JSON object body, at most `limit` bytes (and never more than the console's
   * `maxBodyBytes`). @default {@link SMALL_BODY}
   */
  body(limit?: number): Promise<Record<string, unknown>>;
}

/** What most changes carry: a reason, a flag, a key. */
export const SMALL_BODY = 64 * 1024;
/** An approval with edited arguments: up to the editor's million characters of pretty JSON. */
export const EDIT_BODY = 2 * 1024 * 1024;

/** An API route: a method, a path pattern (after `/api/`) and what answers it. */
export interface Route {
  readonly method: 'GET' | 'POST';
  readonly path: RegExp;
  handle(context: RouteContext): Promise<Response>;
}

/** The HTTP status of a gateway error the page can act on; others are a 500. */
const STATUS: Partial<Record<string, number>> = {
  approval_not_found: 404,
  standing_grant_not_found: 404,
  credential_not_found: 404,
  invalid_arguments: 400,
  credential_refused: 400,
  standing_grant_not_allowed: 409,
  approval_quota_exceeded: 429,
  credential_quota_exceeded: 429,
  store_unavailable: 503,
};

/**
 * The answer for an error a route met: a gateway error the page can act on keeps its code and
 * message (they never hold secrets or host paths); anything else is a plain 500.
 */
export function answerError(error: unknown): Response {
  if (error instanceof BodyError) return failure(error.status, 'bad_body', error.message);
  if (KsadkError.isInstance(error)) {
    const status = STATUS[error.code];
    if (status !== undefined) return failure(status, error.code, error.message);
  }
  return failure(500, 'internal_error', 'The console could not do that; see the server log.');
}

/** A string field of a body, or `undefined`; anything else but absent is a 400. */
export function stringField(
  body: Record<string, unknown>,
  name: string,
  max: number,
): string | undefined {
  const value = body[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string')
    throw new KsadkError('invalid_arguments', `${name} must be a string.`);
  if (value.length > max)
    throw new KsadkError('invalid_arguments', `${name} must be at most ${max} characters.`);
  return value;
}

/** A path part, URL-decoded; `undefined` when it is not valid percent-encoding. */
export function decodedParam(context: RouteContext, index: number): string | undefined {
  try {
    return decodeURIComponent(context.params[index] ?? '');
  } catch {
    return undefined;
  }
}

/** The page size asked for, within 1…`max`. */
export function limitOf(url: URL, fallback: number, max: number): number {
  const value = Number(url.searchParams.get('limit') ?? fallback);
  return Number.isInteger(value) ? Math.min(Math.max(value, 1), max) : fallback;
}
