import { redactSecrets } from '@ksadk/core';

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
  /** Colours text when stdout is a terminal and `NO_COLOR` is not set. */
  paint(kind: Paint, text: string): string;
  /**
   * Shows `label` with a spinner on stderr while `work` runs, if it takes more than a second and
   * stderr is a terminal; nothing otherwise.
   */
  progress<T>(label: string, work: () => Promise<T>): Promise<T>;
  /** Asks a yes/no question on the terminal; `undefined` when there is no terminal to ask on. */
  ask(question: string): Promise<boolean | undefined>;
}

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
  return {
    line: (text = '') => void stdout.write(`${redactSecrets(text)}\n`),
    note: (text) => void stderr.write(`${redactSecrets(text)}\n`),
    json: (value) => void stdout.write(`${redactSecrets(JSON.stringify(value, null, 2))}\n`),
    paint: (kind, text) => {
      if (!colour) return text;
      const [on, off] = CODES[kind];
      return `\u001b[${on}m${text}\u001b[${off}m`;
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
        const answer = await reader.question(`${redactSecrets(question)} [y/N] `);
        return /^y(es)?$/i.test(answer.trim());
      } finally {
        reader.close();
      }
    },
  };
}
