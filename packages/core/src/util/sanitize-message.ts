import { homedir, tmpdir } from 'node:os';
import { redactSecrets, secretValuesFromEnv } from './redact.js';

export { redactSecrets, secretValuesFromEnv } from './redact.js';

const MAX_MESSAGE_CHARS = 500;
/** Longest model-supplied value echoed back in an error message. */
const MAX_ECHO_CHARS = 200;
const PATH = '<path>';
// Absolute POSIX paths of two or more segments (or `~/…`), after a start, a space, a quote, a
// bracket, `=`, `:`, `;`, `|`, `,`, `{`, `@` or `<`; Windows drive paths; UNC paths
// (`\\server\share\…`).
const HOST_PATH =
  /(?:(?<=^|[\s'"`‘’“”(=:;|,[{@<])(?:~(?=\/))?(?:\/[^\s'"`‘’“”)\],:;|}>]+){2,})|(?:(?<=^|[\s'"`‘’“”(=:;|,[{@<])~\/[^\s'"`‘’“”)\],:;|}>]+)|(?:\b[A-Za-z]:\\[^\s'"`‘’“”)\],;|}>]+)|(?:\\\\[^\s\\'"`]+\\[^\s'"`‘’“”)\],;|}>]+)/g;
// An absolute path between matching quotes, as Node's errno messages write one: spaces and all,
// a single segment too (`open '/srv/My Data/x.json'`, `'/opt'`).
const QUOTED_PATH = /(?<=(['"`]))(?:~?\/|[A-Za-z]:\\)[^'"`\n]*(?=\1)/g;

const hostPaths = new Set<string>();
let hostPathPattern: RegExp | undefined;

/**
 * Registers a host directory (a workspace root, a result folder, a cache) whose path must never
 * reach the model: error messages replace it, even when it contains spaces, with `<path>`.
 * The process's working directory, home and temporary directories are registered already.
 */
export function registerHostPath(dir: string): void {
  if (dir.length < 2 || hostPaths.has(dir)) return;
  hostPaths.add(dir);
  hostPathPattern = undefined;
}

for (const dir of [process.cwd(), homedir(), tmpdir()]) registerHostPath(dir);

function scrubHostPaths(text: string): string {
  hostPathPattern ??= new RegExp(
    [...hostPaths]
      .sort((a, b) => b.length - a.length)
      // A registered directory and whatever path continues it (spaces included), up to a quote,
      // the line end, or where a message goes on after it: ": reason", ") ", ", ".
      .map(
        (dir) =>
          `${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:[\\\\/](?:[^'"\`\\n:),]|[:,](?! )|\\)(?![\\s:;,)]|$))*|(?=[^\\w.-]|$))`,
      )
      .join('|'),
    'g',
  );
  return text.replace(hostPathPattern, PATH).replace(QUOTED_PATH, PATH).replace(HOST_PATH, PATH);
}

/** The message of anything thrown, without ever throwing itself. */
function messageOf(error: unknown): string | undefined {
  if (typeof error === 'string') return error;
  if (typeof error !== 'object' || error === null) return undefined;
  try {
    const message = (error as { message?: unknown }).message;
    return typeof message === 'string' ? message : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Turns an error into a short, model-safe message: the first line only, registered credentials
 * and URL passwords redacted, host paths (registered directories, absolute POSIX, Windows and
 * UNC paths) replaced by `<path>`, at most 500 characters. Never a stack trace; never throws,
 * whatever was thrown (a non-string `message`, a getter that throws, a primitive).
 *
 * @example
 * ```ts
 * modelSafeErrorMessage(new Error("ENOENT: open '/srv/app/x.json'")); // "ENOENT: open '<path>'"
 * ```
 */
export function modelSafeErrorMessage(error: unknown, fallback = 'The tool failed.'): string {
  let message = messageOf(error) ?? fallback;
  message = message.split(/\r?\n/, 1)[0]?.trim() || fallback;
  // Registered credentials, and whatever the environment holds right now under a secret name.
  message = scrubHostPaths(redactSecrets(message, secretValuesFromEnv()));
  return message.length > MAX_MESSAGE_CHARS
    ? `${message.slice(0, MAX_MESSAGE_CHARS - 1)}…`
    : message;
}

/** Lines of a message, and causes of an error, {@link modelSafeErrorDetail} keeps at most. */
const MAX_DETAIL_LINES = 4;
const MAX_DETAIL_CAUSES = 3;
const MAX_DETAIL_CHARS = 800;

/**
 * Like {@link modelSafeErrorMessage}, for errors whose cause the model needs (a server's error
 * whose second line says the connection was refused, a `fetch failed` whose `cause` says why): up
 * to four lines of the message and the messages of up to three causes, each redacted and
 * path-free, joined with ` — `, at most 800 characters. Never a stack trace; never throws.
 */
export function modelSafeErrorDetail(error: unknown, fallback = 'The tool failed.'): string {
  const pieces: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth <= MAX_DETAIL_CAUSES && current !== undefined; depth += 1) {
    const message = messageOf(current);
    if (message)
      for (const line of message.split(/\r?\n/).slice(0, MAX_DETAIL_LINES)) {
        const clean = scrubHostPaths(redactSecrets(line.trim(), secretValuesFromEnv()));
        if (clean && !pieces.includes(clean)) pieces.push(clean);
      }
    try {
      current = (current as { cause?: unknown } | null)?.cause;
    } catch {
      current = undefined;
    }
  }
  const detail = pieces.join(' — ') || fallback;
  return detail.length > MAX_DETAIL_CHARS ? `${detail.slice(0, MAX_DETAIL_CHARS - 1)}…` : detail;
}

/**
 * A model-supplied value as it may appear inside an error message: control characters replaced,
 * at most 200 characters (an ellipsis marks the cut).
 *
 * @example
 * ```ts
 * echoValue('a\nb'); // "a b"
 * ```
 */
export function echoValue(value: string, maxChars = MAX_ECHO_CHARS): string {
  const head = value.length > maxChars ? value.slice(0, maxChars) : value;
  // Control characters (C0, C1), line and paragraph separators, zero-width and bidi controls.
  const clean = head.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
    /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g,
    ' ',
  );
  return value.length > maxChars ? `${clean}…` : clean;
}
