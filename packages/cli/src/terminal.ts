import { redactDeep, redactSecrets } from '@ksadk/core';
import { visibleText } from '@ksadk/core/adapter';

/** Exit codes: 0 done, 1 problems found (or the operation failed), 2 a usage error. */
export const EXIT = { ok: 0, problems: 1, usage: 2 } as const;

/** Where a command writes, and how: colours, progress, questions. */
export interface Terminal {
  /** Writes a line to stdout, secrets redacted. */
  line(text?: string): void;
  /** Writes a line to stderr, secrets redacted. */
  note(text: string): void;
  /** Writes a value as JSON (two-space indented) to stdout, secrets redacted. */
  json(value: unknown): void;
  /**
   * Colours text (shown safely, see {@link shown}) when stdout is a terminal and `NO_COLOR` is not
   * set; `to: 'err'` when the text goes to stderr, which may be a terminal when stdout is not.
   */
  paint(kind: Paint, text: string, to?: 'out' | 'err'): string;
  /**
   * Shows `label` with a spinner on stderr while `work` runs, if it takes more than a second and
   * stderr is a terminal; nothing otherwise.
   */
  progress<T>(label: string, work: () => Promise<T>): Promise<T>;
  /** Asks a yes/no question on the terminal; `undefined` when there is no terminal to ask on. */
  ask(question: string): Promise<boolean | undefined>;
  /** Whether anything was written to stdout yet. */
  wroteOut(): boolean;
  /** The lines written to stderr so far (what went wrong, for a `--json` failure). */
  notes(): readonly string[];
}

/**
 * Text from elsewhere — a server, a skill, a model, a store — as it may reach a terminal: every
 * control and format character (an escape sequence that would recolour, hide, move the cursor or
 * write the clipboard; a bidirectional mark) shown as its `\uXXXX` escape. Every such value a
 * command prints goes through it.
 */
export const shown = (value: unknown): string => visibleText(String(value));

/**
 * JSON text as it may reach a terminal: the characters {@link shown} escapes, as JSON escapes
 * (`\uXXXX`, surrogate pairs beyond the basic plane), so it stays the same JSON.
 */
function safeJson(text: string): string {
  return text.replace(INVISIBLE_IN_JSON, (char) =>
    // The newlines of the indentation stay: inside strings, JSON has already escaped every one.
    char === '\n'
      ? char
      : [...char]
          .flatMap((one) => {
            const code = one.codePointAt(0)!;
            if (code <= 0xffff) return [code];
            const offset = code - 0x10000;
            return [0xd800 + (offset >> 10), 0xdc00 + (offset & 0x3ff)];
          })
          .map((unit) => `\\u${unit.toString(16).padStart(4, '0')}`)
          .join(''),
  );
}

/** What {@link safeJson} escapes: what {@link shown} would, but the newlines of indentation. */
const INVISIBLE_IN_JSON =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u115f\u1160\u180e\u2800\u3164\uffa0]|\u034f|\u17b4|\u17b5|[\ufe00-\ufe0f]|[\u{e0100}-\u{e01ef}]/gu;

/** What text can be painted as. */
export type Paint = 'ok' | 'bad' | 'warn' | 'dim' | 'bold' | 'name';

const CODES: Record<Paint, [number, number]> = {
  ok: [32, 39],
  bad: [31, 39],
  warn: [33, 39],
  dim: [2, 22],
  bold: [1, 22],
  name: [36, 39],
};

/** Options of {@link createTerminal}. */
export interface TerminalOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly stdin: NodeJS.ReadStream;
  /** `--no-color`. */
  readonly color: boolean;
}

/** Spinner frames, and how long before one shows. */
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const PROGRESS_AFTER_MS = 1000;

/**
 * The terminal of one run: colours only on a TTY and never with `NO_COLOR` (or `--no-color`),
 * progress only on a TTY stderr, every line through the redactor.
 */
export function createTerminal(options: TerminalOptions): Terminal {
  const { env, stdout, stderr, stdin } = options;
  const colour =
    options.color &&
    stdout.isTTY === true &&
    (env['NO_COLOR'] ?? '') === '' &&
    env['TERM'] !== 'dumb';
  const errColour =
    options.color &&
    stderr.isTTY === true &&
    (env['NO_COLOR'] ?? '') === '' &&
    env['TERM'] !== 'dumb';
  let wrote = false;
  const noted: string[] = [];
  return {
    line: (text = '') => {
      wrote = true;
      stdout.write(`${redactSecrets(text)}\n`);
    },
    note: (text) => {
      const redacted = redactSecrets(text);
      if (noted.length < 100) noted.push(redacted);
      stderr.write(`${redacted}\n`);
    },
    wroteOut: () => wrote,
    notes: () => noted,
    json: (value) => {
      wrote = true;
      // Redacted value by value (a secret holding a quote is still found), then made safe to show.
      const text = JSON.stringify(redactDeep(JSON.parse(JSON.stringify(value) ?? 'null')), null, 2);
      stdout.write(`${safeJson(text)}\n`);
    },
    paint: (kind, text, to = 'out') => {
      const safe = shown(text);
      if (!(to === 'err' ? errColour : colour)) return safe;
      const [on, off] = CODES[kind];
      return `\u001b[${on}m${safe}\u001b[${off}m`;
    },
    async progress(label, work) {
      if (stderr.isTTY !== true) return work();
      let frame = 0;
      let shown = false;
      let spin: NodeJS.Timeout | undefined;
      const draw = () => {
        shown = true;
        const mark = FRAMES[frame++ % FRAMES.length]!;
        stderr.write(`\r${errColour ? `\u001b[36m${mark}\u001b[39m` : mark} ${label}…`);
      };
      const start = setTimeout(() => {
        draw();
        spin = setInterval(draw, 100);
      }, PROGRESS_AFTER_MS);
      try {
        return await work();
      } finally {
        clearTimeout(start);
        clearInterval(spin);
        if (shown) stderr.write('\r\u001b[2K');
      }
    },
    async ask(question) {
      if (stdin.isTTY !== true || stderr.isTTY !== true) return undefined;
      const { createInterface } = await import('node:readline/promises');
      const reader = createInterface({ input: stdin, output: stderr });
      try {
        const answer = await reader.question(`${shown(redactSecrets(question))} [y/N] `);
        return /^y(es)?$/i.test(answer.trim());
      } finally {
        reader.close();
      }
    },
  };
}
