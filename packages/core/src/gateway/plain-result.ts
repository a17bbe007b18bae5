import { TOOL_MEDIA_FIELD } from '../tool/tool-media.js';
import { modelSafeErrorMessage } from '../util/sanitize-message.js';

/** Above this many characters (shared references counted each time) a result is refused, not serialised. */
export const MAX_RESULT_CHARS = 16 * 1024 * 1024;

function isPlainData(value: unknown, depth: number): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      break;
    default:
      return false;
  }
  if (depth > 256) return false;
  if (Array.isArray(value)) return value.every((item) => isPlainData(item, depth + 1));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
  for (const key of Object.keys(value)) {
    if (!isPlainData((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Error) return modelSafeErrorMessage(value);
  return value;
}

/**
 * A tool's result as the plain JSON data a framework will send the model — `toJSON` applied,
 * class instances (a `URL`, a `Date`, anything) reduced to what `JSON.stringify` writes, a BigInt
 * as its decimal string, an `Error` as its model-safe message — so redaction sees exactly the
 * text that leaves. Plain data comes back as the same object.
 *
 * @throws {TypeError} for a cycle or a `toJSON` that throws (the gateway reports a `tool_error`).
 */
export function toPlainJson(value: unknown): unknown {
  if (isPlainData(value, 0)) return value;
  const text = JSON.stringify(value, replacer);
  return text === undefined ? null : JSON.parse(text);
}

/** Above this many characters of media (base64, all parts together) a result is refused. */
export const MAX_MEDIA_CHARS = 4 * MAX_RESULT_CHARS;

/**
 * A result's `media` array taken apart from the rest, each counted against its own limit: media
 * is saved and attached, not serialised into text, and is never rewritten by redaction (that
 * would only corrupt it: a part holding a registered credential is withheld when it is saved,
 * see `keepResultMedia`). `media` is read once.
 */
export function splitResultMedia(value: unknown): { text: unknown; media: unknown[] | undefined } {
  // Most results have no media: no copy for them (a rest pattern costs microseconds per call).
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    !(TOOL_MEDIA_FIELD in value)
  )
    return { text: value, media: undefined };
  const { [TOOL_MEDIA_FIELD]: media, ...text } = value as Record<string, unknown>;
  return Array.isArray(media) && media.length > 0
    ? { text, media }
    : { text: value, media: undefined };
}
