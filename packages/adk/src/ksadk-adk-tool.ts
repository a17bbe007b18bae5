import { BaseTool, type Context, type RunAsyncToolRequest } from '@google/adk';
import type { FunctionDeclaration } from '@google/genai';
import {
  type ApprovalPause,
  describeMediaInResult,
  failedResult,
  invokeWithApproval,
  PAUSED,
  runWithInvocationDefaults,
  type Tool,
  type ToolGateway,
  type ToolProgressEvent,
  type ToolResult,
} from '@ksadk/core';
import { geminiToolSchema } from '@ksadk/core/schema';

/** The payload of the ADK confirmation a gated KsADK call asks for (core's one pause type). */
export type KsadkConfirmationPayload = ApprovalPause;

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

  /** Tells ADK's resume check that this call was gated, so it accepts the confirmation. */
  override async checkRequireConfirmation(
    _args: Record<string, unknown>,
    toolContext?: Context,
  ): Promise<boolean> {
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
        decide: (pause) => {
          // Resumed: ADK hands back the confirmation the human gave.
          const confirmation = toolContext.toolConfirmation;
          if (confirmation) {
            const payload = confirmation.payload as { reason?: unknown } | undefined;
            return {
              type: confirmation.confirmed === true ? 'approve' : 'reject',
              ...(typeof payload?.reason === 'string' ? { reason: payload.reason } : {}),
            };
          }
          const payloadOut: KsadkConfirmationPayload = pause;
          toolContext.requestConfirmation({
            hint: `Approve or reject ${this.name} (${pause.approval_request.risk_level} risk).`,
            payload: payloadOut,
          });
          toolContext.actions.skipSummarization = true;
          return PAUSED;
        },
      });
      return outcome.result;
    });
  }
}
