import type { InvocationContext } from '../context/invocation-context.js';
import type { ToolResult } from '../gateway/results.js';
import type { Tool } from '../tool/tool.js';
import { TOOL_MEDIA_FIELD } from '../tool/tool-media.js';
import { isPlainObject } from '../util/plain-object.js';
import {
  budgetTextFields,
  budgetToolOutput,
  narrowBudget,
  type ResultBudget,
} from './result-budget.js';
import { keepResultMedia } from './result-media.js';

/** Room for a budgeted result's bookkeeping fields on top of its limit. */
const RESULT_OVERHEAD_CHARS = 2_000;

/** Any value a tool returned, as a result object with `ok`. */
export function toToolResult(value: unknown): ToolResult {
  if (isPlainObject(value) && typeof value['ok'] === 'boolean') return value as ToolResult;
  if (isPlainObject(value)) return { ok: true, ...value };
  if (value === undefined || value === null) return { ok: true };
  return { ok: true, result: value };
}

/**
 * Whether `value` holds more than `limit` characters of JSON-ish text. Stops counting as soon as
 * the limit is passed, so a huge or cyclic value costs no more than the limit.
 */
export function exceedsChars(value: unknown, limit: number): boolean {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') total += item.length + 2;
    else if (typeof item === 'number' || typeof item === 'boolean') total += 8;
    else if (Array.isArray(item)) {
      total += item.length;
      // Checked before walking it: a sparse array of 2^32-1 holes must not be pushed at all.
      if (total > limit) return true;
      for (const element of item) stack.push(element);
    } else if (typeof item === 'object' && item !== null) {
      for (const key of Object.keys(item)) {
        total += key.length + 4;
        stack.push((item as Record<string, unknown>)[key]);
      }
    }
    if (total > limit) return true;
  }
  return false;
}

/** What {@link shapeResult} needs to know about the call. */
export interface ShapeCall {
  readonly tool: Tool;
  readonly callId: string;
  readonly context: InvocationContext;
}

/**
 * Keeps a result within the budget: the tool's declared large fields are budgeted one by one
 * (inline preview, full text persisted), then a result still over the limit is replaced whole by
 * a preview of its JSON with the full copy persisted. Small results come back as they are,
 * synchronously.
 */
export function shapeResult(
  result: ToolResult,
  call: ShapeCall,
  budget: ResultBudget,
  /** The result's `media`, taken apart from it (see `splitResultMedia`). */
  media?: readonly unknown[],
): ToolResult | Promise<ToolResult> {
  if (media) return shapeWithMedia(result, media, call, budget);
  if (!call.tool.resultBudget && !exceedsChars(result, budget.maxChars + RESULT_OVERHEAD_CHARS))
    return result;
  return budgetResult(result, call, budget);
}

/**
 * Media is budgeted apart from the text: each part is saved with a handle (and sent inline only
 * where the adapter's model can take it), so an image never counts as text, and never turns into
 * a base64 preview.
 */
async function shapeWithMedia(
  text: ToolResult,
  media: readonly unknown[],
  call: ShapeCall,
  budget: ResultBudget,
): Promise<ToolResult> {
  const shaped = await shapeResult(text, call, budget);
  // The text's saved outputs first; the media's retention passes must not remove them.
  const saved = Object.values(
    (shaped['persisted_outputs'] as Record<string, { path?: unknown }> | undefined) ?? {},
  ).flatMap((output) => (typeof output?.path === 'string' ? [output.path] : []));
  const kept = await keepResultMedia(media, call, budget, saved);
  return { ...shaped, [TOOL_MEDIA_FIELD]: kept } as ToolResult;
}

async function budgetResult(
  result: ToolResult,
  call: ShapeCall,
  budget: ResultBudget,
): Promise<ToolResult> {
  const { tool, callId, context } = call;
  let shaped = result;
  const toolBudget = tool.resultBudget;
  const fieldLimit = toolBudget
    ? Math.min(narrowBudget(budget, toolBudget).maxChars, budget.persistThresholdChars)
    : 0;
  const oversized =
    toolBudget?.fields.some((field) => {
      const value = result[field];
      if (value === undefined || value === null) return false;
      return typeof value === 'string'
        ? value.length > fieldLimit
        : exceedsChars(value, fieldLimit);
    }) ?? false;
  if (toolBudget && oversized) {
    shaped = (await budgetTextFields(shaped, tool.name, toolBudget.fields, {
      budget: narrowBudget(budget, toolBudget),
      metadata: { toolCallId: callId },
      context,
    })) as ToolResult;
  }
  const saved = toolBudget?.persistFields?.filter(
    (field) => shaped[field] !== undefined && shaped[field] !== null,
  );
  if (saved && saved.length > 0) {
    // Saved whole, sent as a handle only: a preview of nothing.
    shaped = (await budgetTextFields(shaped, tool.name, saved, {
      budget: { ...budget, maxChars: 0, previewChars: 0, persistThresholdChars: 0 },
      metadata: { toolCallId: callId },
      context,
    })) as ToolResult;
    for (const field of saved) delete (shaped as Record<string, unknown>)[field];
  }
  if (!exceedsChars(shaped, budget.maxChars + RESULT_OVERHEAD_CHARS)) return shaped;
  const whole = await budgetToolOutput(tool.name, 'result', shaped, {
    budget,
    metadata: { toolCallId: callId },
    context,
  });
  return {
    ok: shaped.ok,
    ...(typeof shaped['error_type'] === 'string' ? { error_type: shaped['error_type'] } : {}),
    result_truncated: true,
    result_preview: whole.value,
    result_original_chars: whole.original_chars,
    ...(whole.persisted ? { persisted_outputs: { result: whole.persisted } } : {}),
    ...(whole.persist_error ? { persist_errors: { result: whole.persist_error } } : {}),
  };
}
