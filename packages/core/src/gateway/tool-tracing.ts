import type * as OpenTelemetry from '@opentelemetry/api';
import { KsadkError } from '../errors/ksadk-error.js';
import type { Tool } from '../tool/tool.js';
import { describeMediaInResult } from '../tool/tool-media.js';
import { lazyRequire } from '../util/deferred-modules.js';
import { redactDeep } from '../util/redact.js';
import type { ToolResult } from './results.js';

/**
 * How a call met the approval gate, as recorded on its span (`ksadk.approval`): `replayed` is a
 * replay of a call whose approval was already used (it did not run again).
 */
export type TracedApproval =
  | 'not_needed'
  | 'required'
  | 'approved'
  | 'rejected'
  | 'replayed'
  | 'refused';

/**
 * Tracing options of the gateway. Spans follow the OpenTelemetry GenAI semantic conventions
 * (`execute_tool` operation); they are recorded only when `@opentelemetry/api` is installed and an
 * SDK is registered, and cost next to nothing otherwise.
 */
export interface ToolTracingOptions {
  /**
   * Where to get the tracer (an OpenTelemetry `TracerProvider`).
   * @default the global provider of `@opentelemetry/api`
   */
  tracerProvider?: { getTracer(name: string, version?: string): unknown };
  /**
   * Record the validated arguments as `gen_ai.tool.call.arguments` (redacted, at most 8,192
   * characters). Arguments can hold personal data: off unless the host opts in.
   * @default false
   */
  recordArguments?: boolean;
  /**
   * Record the result as `gen_ai.tool.call.result` (redacted, at most 8,192 characters).
   * @default false
   */
  recordResults?: boolean;
}

/** One traced call: its span, made active while the call runs. */
export interface ToolCallTrace {
  /** Runs `fn` with the call's span as the active span (tools' own spans nest under it). */
  run<T>(fn: () => T): T;
  /** Notes how the call met the approval gate. */
  approval(value: TracedApproval): void;
  /** Notes the validated arguments (recorded only when the host opted in). */
  arguments(value: unknown): void;
  /** Notes the id of the call's execution record (`ksadk.execution.id`). */
  execution(id: string): void;
  /** Ends the span with the call's outcome. */
  end(result: ToolResult, outcome: string): void;
}

/** Starts a trace per call. */
export interface ToolTracer {
  start(tool: Tool, callId: string, invocationId: string | undefined): ToolCallTrace;
}

type Api = typeof OpenTelemetry;
const loadApi = lazyRequire<Api>('@opentelemetry/api');
const RECORDED_CHARS = 8192;

function optionalApi(): Api | undefined {
  try {
    return loadApi();
  } catch {
    return undefined;
  }
}

const recorded = (value: unknown): string => {
  let text: string;
  try {
    text = JSON.stringify(redactDeep(value)) ?? '';
  } catch {
    text = '';
  }
  return text.length > RECORDED_CHARS ? `${text.slice(0, RECORDED_CHARS)}…` : text;
};

/** A call traced by the API alone (no SDK registered): nothing to record, its span only ended. */
class PlaceholderTrace implements ToolCallTrace {
  readonly #span: OpenTelemetry.Span;
  constructor(span: OpenTelemetry.Span) {
    this.#span = span;
  }
  run<T>(fn: () => T): T {
    return fn();
  }
  approval(): void {}
  arguments(): void {}
  execution(): void {}
  end(): void {
    this.#span.end();
  }
}

/**
 * The gateway's tracer, or `undefined` when tracing is off or `@opentelemetry/api` is not installed
 * (then no call pays anything for it).
 *
 * @throws {KsadkError} `invalid_config` when a `tracerProvider` is given but has no `getTracer`.
 */
export function createToolTracer(
  options: ToolTracingOptions | false | undefined,
  version: string,
): ToolTracer | undefined {
  if (options === false) return undefined;
  const given = options?.tracerProvider;
  if (given !== undefined && typeof given?.getTracer !== 'function') {
    throw new KsadkError('invalid_config', 'tracing.tracerProvider must have a getTracer method.');
  }
  const api = optionalApi();
  if (!api) return undefined;
  const { context, trace, SpanKind, SpanStatusCode, INVALID_TRACEID } = api;
  const tracer = (given ?? trace).getTracer('@ksadk/core', version) as OpenTelemetry.Tracer;
  const recordArguments = options?.recordArguments === true;
  const recordResults = options?.recordResults === true;

  return {
    start(tool, callId, invocationId) {
      const span = tracer.startSpan(`execute_tool ${tool.name}`, { kind: SpanKind.INTERNAL });
      const recording = span.isRecording();
      // No SDK and no parent span: the span is a placeholder; making it active would change nothing.
      if (!recording && span.spanContext().traceId === INVALID_TRACEID)
        return new PlaceholderTrace(span);
      let approval: TracedApproval = 'not_needed';
      if (recording) {
        span.setAttributes({
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': tool.name,
          'gen_ai.tool.call.id': callId,
          'gen_ai.tool.type': 'function',
          'ksadk.risk_level': tool.policy.riskLevel,
          ...(tool.group ? { 'ksadk.tool.group': tool.group } : {}),
          ...(invocationId ? { 'ksadk.invocation_id': invocationId } : {}),
        });
      }
      const active = trace.setSpan(context.active(), span);
      return {
        run: (fn) => context.with(active, fn),
        approval(value) {
          approval = value;
        },
        arguments(value) {
          if (recording && recordArguments)
            span.setAttribute('gen_ai.tool.call.arguments', recorded(value));
        },
        execution(id) {
          if (recording) span.setAttribute('ksadk.execution.id', id);
        },
        end(result, outcome) {
          if (recording) {
            span.setAttribute('ksadk.approval', approval);
            span.setAttribute('ksadk.outcome', outcome);
            const errorType = result.ok ? undefined : result['error_type'];
            if (typeof errorType === 'string') {
              span.setAttribute('error.type', errorType);
              // A pause for a human is not an error of the call.
              if (outcome !== 'approval_required')
                span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
            }
            // Media is recorded as its description: no base64 in a trace.
            if (recordResults)
              span.setAttribute('gen_ai.tool.call.result', recorded(describeMediaInResult(result)));
          }
          span.end();
        },
      };
    },
  };
}
