import { catalogFailure } from './failure.js';

/**
 * The dispatcher's `arguments` as an object (a copy): given as an object or as its JSON text;
 * nothing or blank text is `{}`. Anything else is the error to answer (`invalid_arguments_json`,
 * `invalid_arguments_type`).
 */
export function parseArguments(
  raw: unknown,
):
  | Record<string, unknown>
  | { ok: false; error_type: string; error_message: string; [key: string]: unknown } {
  if (raw === undefined || raw === null) return {};
  if (typeof raw === 'string') {
    const text = raw.trim();
    if (text === '') return {};
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return catalogFailure(
        'invalid_arguments_json',
        `arguments is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
        { arguments: raw.length > 500 ? `${raw.slice(0, 500)}…` : raw },
      );
    }
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      return { ...(parsed as Record<string, unknown>) };
    return catalogFailure('invalid_arguments_type', 'arguments must be a JSON object', {
      arguments_type: Array.isArray(parsed) ? 'array' : parsed === null ? 'null' : typeof parsed,
    });
  }
  if (typeof raw === 'object' && !Array.isArray(raw))
    return { ...(raw as Record<string, unknown>) };
  return catalogFailure('invalid_arguments_type', 'arguments must be a JSON object', {
    arguments_type: Array.isArray(raw) ? 'array' : typeof raw,
  });
}
