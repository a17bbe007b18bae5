import {
  BaseTool,
  type Context,
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  type RunAsyncToolRequest,
} from '@google/adk';
import type { FunctionDeclaration } from '@google/genai';
import type {
  HumanInputRequest,
  Tool,
  ToolGateway,
  ToolProgressEvent,
  ToolResult,
} from '@ksadk/core';
import {
  type ApprovalPause,
  type CredentialPause,
  describeMediaInResult,
  failedResult,
  invokeWithApproval,
  PAUSED,
  parseHumanInputAnswer,
  runWithInvocationDefaults,
} from '@ksadk/core/adapter';
import { geminiToolSchema } from '@ksadk/core/schema';
import { decisionOfConfirmation } from './confirmation-decision.js';

/** The payload of the ADK confirmation a KsADK call asks for: an approval, or a credential (core's pause types). */
export type KsadkConfirmationPayload = ApprovalPause | CredentialPause;

/**
 * The payload of the ADK confirmation a question mid-call asks for (an MCP elicitation). Answer
 * with a `functionResponse` `{ confirmed: true, payload: { action: 'accept', content } }` (or
 * `{ action: 'decline' | 'cancel' }`, or `{ confirmed: false }`).
 */
export type KsadkInputPayload = HumanInputRequest;

/** ADK's session facts, for the invocation context fields the host did not set (so approvals bind to the ADK session). */
function adkDefaults(toolContext: Context) {
  return {
    userId: toolContext.userId,
    sessionId: toolContext.sessionId,
    invocationId: toolContext.invocationId,
    agentId: toolContext.agentName,
  };
}

/**
 * Whether this call asked the human a question (or for a credential) earlier in the session: the
 * agent's own `adk_request_confirmation` for this call id carries a `ksadk_input` (or
 * `ksadk_credential`) payload.
 */
function askedForInput(toolContext: Context): boolean {
  const id = toolContext.functionCallId;
  if (!id) return false;
  return toolContext.invocationContext.session.events.some(
    (event) =>
      event.author === toolContext.invocationContext.agent?.name &&
      (event.content?.parts ?? []).some((part) => {
        const call = part.functionCall;
        if (call?.name !== REQUEST_CONFIRMATION_FUNCTION_CALL_NAME) return false;
        const args = call.args as
          | {
              originalFunctionCall?: { id?: unknown };
              toolConfirmation?: { payload?: { type?: unknown } };
            }
          | undefined;
        return (
          args?.originalFunctionCall?.id === id &&
          (args.toolConfirmation?.payload?.type === 'ksadk_input' ||
            args.toolConfirmation?.payload?.type === 'ksadk_credential')
        );
      }),
  );
}

/**
 * One KsADK tool as an ADK `BaseTool`. Its declaration carries the tool's schema as
 * `parametersJsonSchema` (never ADK's lossy converters); every call goes through the gateway;
 * a call that needs approval becomes an ADK tool confirmation.
 */
export class KsadkAdkTool extends BaseTool {
  /** The KsADK tool behind this ADK tool. */
  readonly ksadkTool: Tool;
  private readonly gateway: ToolGateway;
  private readonly onProgress: ((event: ToolProgressEvent) => void) | undefined;

  constructor(
    tool: Tool,
    gateway: ToolGateway,
    options: { onProgress?: (event: ToolProgressEvent) => void } = {},
  ) {
    super({ name: tool.name, description: tool.description });
    this.ksadkTool = tool;
    this.gateway = gateway;
    this.onProgress = options.onProgress;
  }

  override _getDeclaration(): FunctionDeclaration {
    return {
      name: this.name,
      description: this.description,
      parametersJsonSchema: geminiToolSchema(this.ksadkTool),
    };
  }

  /**
   * Tells ADK's resume check that this call was gated — by an approval, or by a question it asked
   * mid-call (found in the session, so it holds across processes) — so it accepts the confirmation.
   */
  override async checkRequireConfirmation(
    _args: Record<string, unknown>,
    toolContext?: Context,
  ): Promise<boolean> {
    if (toolContext && askedForInput(toolContext)) return true;
    const check = (): boolean => this.gateway.requiresApproval(this.ksadkTool);
    return toolContext ? runWithInvocationDefaults(adkDefaults(toolContext), check) : check();
  }

  override async runAsync(request: RunAsyncToolRequest): Promise<ToolResult> {
    try {
      // An ADK tool answers with one JSON object (the function response): media is described.
      return describeMediaInResult(await this.run(request));
    } catch (error) {
      // One call's failure is that call's function response, never the whole turn's.
      return failedResult(error);
    }
  }

  private run({ args, toolContext }: RunAsyncToolRequest): Promise<ToolResult> {
    return runWithInvocationDefaults(adkDefaults(toolContext), async () => {
      const outcome = await invokeWithApproval(this.gateway, this.ksadkTool, args, {
        ...(toolContext.functionCallId ? { callId: toolContext.functionCallId } : {}),
        ...(toolContext.abortSignal ? { signal: toolContext.abortSignal } : {}),
        ...(this.onProgress ? { onProgress: this.onProgress } : {}),
        // A question mid-call (an MCP elicitation) is one more ADK confirmation; the human's
        // answer comes back as its payload ({ action, content }) or as a plain decline.
        askHuman: (request) => {
          const confirmation = toolContext.toolConfirmation;
          if (confirmation) {
            const payload = confirmation.payload as { action?: unknown } | undefined;
            if (typeof payload?.action === 'string') return parseHumanInputAnswer(payload);
            // ADK 2.0 raises one confirmation per call: a call resumed from its approval cannot
            // pause again for a question, so the question is declined.
            return { action: 'decline' };
          }
          const question: KsadkInputPayload = request;
          toolContext.requestConfirmation({
            hint: `${request.source} asks: ${request.message.slice(0, 500)}`,
            payload: question,
          });
          toolContext.actions.skipSummarization = true;
          return PAUSED;
        },
        decide: (pause) => {
          // Resumed: ADK hands back the confirmation the human gave.
          const confirmation = toolContext.toolConfirmation;
          if (confirmation) {
            if (pause.type !== 'ksadk_credential') return decisionOfConfirmation(confirmation);
            // The sign-in's answer ({ callbackUrl } / { apiKey } / { token }) is the payload.
            return confirmation.confirmed === true ? confirmation.payload : { action: 'cancel' };
          }
          toolContext.requestConfirmation({
            hint:
              pause.type === 'ksadk_credential'
                ? `${this.name} needs the user's ${pause.credential_request.credential_id} credential (${pause.credential_request.kind}).`
                : `Approve or reject ${this.name} (${pause.approval_request.risk_level} risk).`,
            payload: pause satisfies KsadkConfirmationPayload,
          });
          toolContext.actions.skipSummarization = true;
          return PAUSED;
        },
      });
      return outcome.result;
    });
  }
}
