import type { z } from 'zod';
import type { ResultBudget } from '../budget/result-budget.js';
import type { InvocationContext } from '../context/invocation-context.js';
import type { ToolCredential } from '../credentials/credential-required.js';
import type { CredentialSpec } from '../credentials/credential-spec.js';
import type { ApprovalGrant } from '../gateway/approval/grant.js';
import type { ToolResult } from '../gateway/results.js';
import type { HumanInputAnswer, HumanInputRequest } from './human-input.js';
import type { PAUSED } from './paused.js';
import type { ToolPolicy } from './policy.js';

/** A JSON Schema document (any draft), as plain data. */
export type JsonSchema = { [key: string]: unknown };

/**
 * What a running tool may ask of the gateway that runs it: calling another tool (a dispatcher
 * does, and the call is gated like any other) and the result budget. Every `ToolGateway` is one.
 */
export interface ToolRunner {
  invoke(
    tool: Tool,
    rawArgs: unknown,
    options?: {
      callId?: string;
      signal?: AbortSignal;
      approval?: ApprovalGrant | string;
      timeoutMs?: number;
    },
  ): Promise<ToolResult>;
  /** The resolved result budget. */
  readonly budget: ResultBudget;
}

/** What a tool's `execute` receives besides its validated input. */
export interface ToolExecutionContext {
  /** The model-facing tool name. */
  readonly toolName: string;
  /** The framework's tool call id, or a generated one; unique per call. */
  readonly callId: string;
  /**
   * Aborted on timeout or when the caller aborts; pass it to any I/O. Made on first read (a
   * getter, so a copy of the context made with a spread does not carry it: pass the context).
   */
  readonly signal: AbortSignal;
  /** The invocation context the call runs in (empty fields when none was set). */
  readonly invocation: InvocationContext;
  /** The gateway running this call: tools that call other tools (a dispatcher) go through it too. */
  readonly gateway: ToolRunner;
  /**
   * The grant the host presented with this call, if any. A tool that dispatches to another tool
   * passes it on; it only counts for the call it was issued for.
   */
  readonly approval: ApprovalGrant | string | undefined;
  /**
   * Reports the progress of a long call to the host (the caller's `onProgress`: a progress bar, an
   * adapter's stream event). With `resetTimeout`, the call's timeout starts again — an idle timeout
   * rather than a total one — up to ten times the timeout in all. Never shown to the model.
   */
  reportProgress(progress: ToolProgress): void;
  /**
   * Asks the human a question mid-call (an MCP server's elicitation) through the adapter's pause.
   * Resolves to the answer, or to `PAUSED` when the framework pauses now: the tool should then stop
   * what it was doing and return `inputRequiredResult(request)`; the call runs again, with the
   * answer, when the run resumes. Without a human channel it resolves to a decline.
   */
  askHuman(request: HumanInputRequest): Promise<HumanInputAnswer | typeof PAUSED>;
  /**
   * The current account's (and user's) credential `id`, which the tool declares in `credentials`.
   * When none is stored (or it expired and cannot be refreshed) the call stops here: the gateway
   * answers `credential_required`, the host signs the user in, and the call runs again. Let what it
   * throws pass. The token is registered with the redactor: it never reaches the model.
   *
   * When the service refused a token (HTTP 401), ask again with `{ rejectedToken }`: a stored
   * credential still holding it is refreshed, or dropped and asked for again.
   */
  credential(id: string, options?: { readonly rejectedToken?: string }): Promise<ToolCredential>;
}

/** Progress of a long-running call, as a tool reports it. */
export interface ToolProgress {
  /** Work done so far (any unit; grows). */
  readonly progress: number;
  /** The total, when known. */
  readonly total?: number;
  /** A short human-readable status. */
  readonly message?: string;
  /** Restart the call's timeout (the host opted in, e.g. MCP `resetTimeoutOnProgress`). */
  readonly resetTimeout?: boolean;
}

/** Per-tool result budgeting: which text fields may be large, and their own limits. */
export interface ToolResultBudgetOptions {
  /** Top-level string fields of the result to budget (for example `content`, `stdout`). */
  readonly fields: readonly string[];
  /** The tool's own inline limit; the effective limit is `min(this, global cap)`. */
  readonly maxChars?: number;
  /** The tool's own preview length when the full value is persisted. */
  readonly previewChars?: number;
  /**
   * Top-level fields always saved to the result store and never sent inline — the model gets
   * their handle (in `persisted_outputs`) and size: the parts of an MCP result past the inline cap.
   */
  readonly persistFields?: readonly string[];
}

/** Fields shared by every tool. */
interface ToolBase {
  /** Model-facing name, `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`. */
  readonly name: string;
  /** What the tool does, when to use it, when not to, and its limits. */
  readonly description: string;
  /** Catalogue group (`workspace`, `mcp:<server>`, …). */
  readonly group: string;
  /** The approval policy. */
  readonly policy: ToolPolicy;
  /** Per-call timeout in milliseconds; the gateway's default when absent. */
  readonly timeoutMs: number | undefined;
  /** Large-field budgeting for this tool's results. */
  readonly resultBudget: ToolResultBudgetOptions | undefined;
  /** The name the tool has at its origin (an MCP server, say) when it differs from `name`. */
  readonly originalName: string | undefined;
  /** Where the tool acts (`workspace_root`, `isolated_sandbox`, `public_http`…), for descriptors. */
  readonly boundary: string | undefined;
  /** The credentials of the user the tool acts as (empty: none). */
  readonly credentials?: readonly CredentialSpec[];
  /** A short human-readable summary of a call, for the approval request. */
  readonly describeCall?: (args: Record<string, unknown>) => string;
}

/** A tool whose input is a zod 4 object: the single source of truth for its schema. */
export interface ZodTool<TSchema extends z.ZodObject = z.ZodObject, TOutput = unknown>
  extends ToolBase {
  readonly kind: 'zod';
  /** The input schema. */
  readonly input: TSchema;
  /** Runs the tool. Never called directly by users: go through a gateway. */
  readonly execute: (
    input: z.output<TSchema>,
    context: ToolExecutionContext,
  ) => TOutput | Promise<TOutput>;
}

/** A tool that came from outside (MCP, an external registration) and carries a JSON Schema. */
export interface JsonSchemaTool<TOutput = unknown> extends ToolBase {
  readonly kind: 'json-schema';
  /** The input JSON Schema (an object schema). */
  readonly inputSchema: JsonSchema;
  /** Runs the tool. Never called directly by users: go through a gateway. */
  readonly execute: (
    input: Record<string, unknown>,
    context: ToolExecutionContext,
  ) => TOutput | Promise<TOutput>;
}

/** Any tool the gateway can run. */
export type Tool = ZodTool<z.ZodObject, unknown> | JsonSchemaTool<unknown>;
