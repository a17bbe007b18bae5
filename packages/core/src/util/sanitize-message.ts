const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;
const MIN_SECRET_LENGTH = 8;
const MAX_MESSAGE_CHARS = 500;
// Absolute POSIX paths (at least two segments) and Windows drive paths.
const HOST_PATH = /(?:(?<=^|[\s'"`(=:,[])(?:\/[^\s'"`)\],:]+){2,})|(?:\b[A-Za-z]:\\[^\s'"`)\],]+)/g;

/** Values of environment variables whose names look secret (keys, tokens, passwords). */
export function secretValuesFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= MIN_SECRET_LENGTH && SECRET_NAME.test(name)) values.push(value);
  }
  return values.sort((a, b) => b.length - a.length);
}

/** Replaces every occurrence of each secret in `text` with `[REDACTED]`. */
export function redactSecrets(
  text: string,
  secrets: readonly string[] = secretValuesFromEnv(),
): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && out.includes(secret)) out = out.split(secret).join('[REDACTED]');
  }
  return out;
}

/**
 * Turns an error into a short, model-safe message: the first line only, secrets redacted,
 * absolute host paths replaced by `<path>`, at most 500 characters. Never a stack trace.
 */
export function modelSafeErrorMessage(error: unknown, fallback = 'The tool failed.'): string {
  let message =
    error instanceof Error ? error.message : typeof error === 'string' ? error : fallback;
  message = message.split(/\r?\n/, 1)[0]?.trim() || fallback;
  message = redactSecrets(message).replace(HOST_PATH, '<path>');
  return message.length > MAX_MESSAGE_CHARS
    ? `${message.slice(0, MAX_MESSAGE_CHARS - 1)}…`
    : message;
}
