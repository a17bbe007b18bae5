import path from 'node:path';

let available: Promise<boolean> | undefined;

/** Whether an `rg` executable is on PATH (checked once per process). */
export function ripgrepAvailable(): Promise<boolean> {
  available ??= import('node:child_process').then(
    ({ spawn }) =>
      new Promise<boolean>((resolve) => {
        const child = spawn('rg', ['--version'], {
          stdio: 'ignore',
          env: { PATH: process.env['PATH'] ?? '' },
        });
        child.once('error', () => resolve(false));
        child.once('exit', (code) => resolve(code === 0));
      }),
  );
  return available;
}

/** ripgrep refused the pattern itself (a syntax error, or a compiled size past its limit). */
export class RipgrepPatternError extends Error {
  override readonly name = 'RipgrepPatternError';
  constructor(
    message: string,
    /** `too_complex` for ripgrep's compiled-size limit, `invalid` for a syntax it does not accept. */
    readonly kind: 'too_complex' | 'invalid',
  ) {
    super(message);
  }
}

/** Options for {@link ripgrepMatches}. */
export interface RipgrepOptions {
  /** Real path of the workspace root (the working directory). */
  root: string;
  /** Directory or file to search, relative to the root. */
  base: string;
  query: string;
  isRegex: boolean;
  caseSensitive: boolean;
  /** Files larger than this many bytes are skipped. */
  maxFileBytes: number;
  timeoutMs: number;
  /** Stop reading after this many matching lines. */
  maxMatches: number;
  signal?: AbortSignal;
}

/**
 * Runs ripgrep and returns the matching line numbers per relative path. The query is passed with
 * `-e` (so `--pre=…` or `-e` are searched literally), after `--no-config` (no config file can
 * add options), and the path after `--`. Ignore files, hidden-file rules and symlinks are not
 * honoured or followed, matching the in-process search; files in which ripgrep detects binary
 * data are dropped entirely. Rejects with {@link RipgrepPatternError} when ripgrep refuses the
 * pattern, and otherwise on a timeout or a spawn error. An exit 2 for an unreadable file keeps
 * the matches found (the in-process search skips such files too).
 */
export async function ripgrepMatches(options: RipgrepOptions): Promise<Map<string, Set<number>>> {
  // Loaded on first use: importing @ksadk/core must stay cheap.
  const [{ spawn }, { createInterface }] = await Promise.all([
    import('node:child_process'),
    import('node:readline'),
  ]);
  const args = [
    '--no-config',
    '--json',
    '--no-ignore',
    '--hidden',
    '--no-follow',
    '--crlf',
    '--max-filesize',
    String(options.maxFileBytes),
    options.caseSensitive ? '--case-sensitive' : '--ignore-case',
    ...(options.isRegex ? [] : ['--fixed-strings']),
    '-e',
    options.query,
    '--',
    options.base,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('rg', args, {
      cwd: options.root,
      env: { PATH: process.env['PATH'] ?? '', LC_ALL: 'C.UTF-8' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Kept for the error message only, and bounded.
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk.slice(0, 4096 - stderr.length);
    });
    const matches = new Map<string, Set<number>>();
    const binary = new Set<string>();
    let count = 0;
    let settled = false;
    const finish = (error?: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (error) {
        child.kill('SIGKILL');
        reject(error);
        return;
      }
      for (const file of binary) matches.delete(file);
      resolve(matches);
    };
    const onAbort = (): void => finish(new Error('search aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => finish(new Error('ripgrep timed out')), options.timeoutMs);
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      let message: {
        type?: string;
        data?: { path?: { text?: string }; line_number?: number; binary_offset?: number | null };
      };
      try {
        message = JSON.parse(line);
      } catch {
        return;
      }
      const file = message.data?.path?.text;
      if (!file) return;
      const relative = path.posix.normalize(file.split(path.sep).join('/'));
      if (message.type === 'match' && typeof message.data?.line_number === 'number') {
        const set = matches.get(relative) ?? new Set<number>();
        matches.set(relative, set);
        set.add(message.data.line_number);
        count += 1;
        if (count >= options.maxMatches) {
          child.kill('SIGKILL');
          finish();
        }
      } else if (message.type === 'end' && message.data?.binary_offset != null) {
        binary.add(relative);
      }
    });
    child.once('error', (error) => finish(error));
    child.once('close', (code) => {
      if (code === 0 || code === 1) finish();
      else if (code === 2 && /size limit/i.test(stderr)) {
        finish(
          new RipgrepPatternError(
            'the regular expression is too complex for ripgrep (its compiled size exceeds the limit); simplify it or use a literal query',
            'too_complex',
          ),
        );
      } else if (code === 2 && /regex parse error/i.test(stderr)) {
        const reason = stderr.split('\n').find((line) => /^error:/i.test(line.trim())) ?? '';
        finish(
          new RipgrepPatternError(
            `invalid regular expression${
              reason
                ? `: ${reason
                    .trim()
                    .replace(/^error:\s*/i, '')
                    .slice(0, 200)}`
                : ''
            }`,
            'invalid',
          ),
        );
      } else if (code === 2) finish();
      else finish(new Error(`ripgrep exited with status ${code}`));
    });
  });
}
