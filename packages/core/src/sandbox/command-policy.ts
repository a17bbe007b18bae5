import path from 'node:path';
import type * as ShellQuote from 'shell-quote';
import type { ParseEntry } from 'shell-quote';
import { isCloudMetadataAddress, isCloudMetadataName } from '../util/cloud-metadata.js';
import { lazyRequire } from '../util/deferred-modules.js';
import { sandboxFailure } from './failure.js';

// Loaded on the first command screened: the catalogue that binds the sandbox tools stays cheap.
const shellQuote = lazyRequire<typeof ShellQuote>('shell-quote');

/**
 * What the command screen decided. Rejections are final: an approval never lifts them.
 * `reason` says why a command was allowed.
 */
export type CommandPolicyDecision =
  | { ok: true; decision: 'allow'; reason: 'default_allow' | 'read_only_git' }
  | {
      ok: false;
      decision: 'reject';
      error_type: 'command_required' | 'invalid_command' | 'command_rejected';
      error_message: string;
    };

/** Longest command screened (longer ones are refused). */
const MAX_COMMAND_CHARS = 64 * 1024;
/** Nesting of `sh -c`, `eval`, `$(…)` and backticks followed. */
const MAX_DEPTH = 8;

const DENIED_PROGRAMS = new Set([
  'sudo',
  'su',
  'doas',
  'pkexec',
  'sg',
  'runuser',
  'gosu',
  'su-exec',
  'kubectl',
  'docker',
  'podman',
  'nerdctl',
]);
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'mksh']);
/** Words screened per command; more is refused (the screen must stay cheap). */
const MAX_WORDS = 4096;
/** Programs that run the rest of their arguments as a command. */
const WRAPPERS = new Set([
  'env',
  'command',
  'exec',
  'nohup',
  'nice',
  'time',
  'timeout',
  'xargs',
  'stdbuf',
  'setsid',
  'chroot',
  'unshare',
  'flock',
  'busybox',
]);
/** Wrapper options that take a value as the next argument. */
const WRAPPER_VALUE_OPTIONS = new Set(['-n', '-s', '-k', '-u', '-C', '-S', '-I', '-L', '-P']);
const READ_ONLY_GIT = new Set(['status', 'diff', 'log', 'show', 'branch', 'ls-files']);
const DESTRUCTIVE_GIT = new Set(['reset', 'clean', 'push', 'checkout']);
/** git's global options that take the next argument. */
const GIT_VALUE_OPTIONS = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--exec-path',
]);

const reject = (
  error_type: 'command_required' | 'invalid_command' | 'command_rejected',
  error_message: string,
): CommandPolicyDecision =>
  sandboxFailure(error_type, error_message, { decision: 'reject' as const });

/**
 * Prepares a command for `shell-quote`, which differs from a shell in two ways that matter here:
 * it reads a newline as a space (a shell ends the command there) and a `#` inside a word as a
 * comment that hides the rest (a shell only starts a comment at the start of a word, and ends it
 * at the newline). Unquoted newlines become `;`, real comments are dropped up to their newline,
 * and a `#` inside a word is escaped. Returns `undefined` when a quote is left open.
 */
function normalise(command: string): string | undefined {
  let out = '';
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < command.length; i += 1) {
    const char = command[i]!;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      out += char;
    } else if (char === '\\') {
      out += char + (command[i + 1] ?? '');
      i += 1;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      out += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      out += char;
    } else if (char === '\n') {
      out += ';';
    } else if (char === '#') {
      const previous = out[out.length - 1];
      if (previous === undefined || /[\s;&|()<>]/.test(previous)) {
        const end = command.indexOf('\n', i);
        if (end < 0) break;
        i = end - 1;
      } else {
        out += '\\#';
      }
    } else {
      out += char;
    }
  }
  return quote === undefined ? out : undefined;
}

/**
 * Whether `host` (a name, an IPv4 in any form a URL accepts, or an IPv6 in any spelling) names a
 * metadata service; every IPv4 link-local address counts.
 */
export function isMetadataHost(host: string): boolean {
  const name = host.trim().toLowerCase().replace(/\.$/, '');
  if (!name) return false;
  if (isCloudMetadataName(name)) return true;
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  if (bare.includes(':')) return isCloudMetadataAddress(bare, { anyLinkLocal: true });
  // Decimal, hex, octal and short forms (all with a digit): the URL parser normalises them as a
  // browser or curl would.
  if (!/^[0-9a-fx.]+$/.test(bare) || !/\d/.test(bare)) return false;
  let normalised: string;
  try {
    normalised = new URL(`http://${bare}/`).hostname;
  } catch {
    return false;
  }
  return isCloudMetadataAddress(normalised, { anyLinkLocal: true });
}

/** Host-like pieces of an argument: URLs, `user@host:port`, bracketed IPv6, bare addresses. */
function hostCandidates(word: string): string[] {
  const out = [word];
  for (const match of word.matchAll(/\[([0-9a-fA-F:.]+)\]/g)) out.push(match[1]!);
  for (const piece of word.split(/[/@?#,=;'"\s[\]]+/)) {
    if (!piece) continue;
    out.push(piece);
    const colon = piece.lastIndexOf(':');
    if (colon > 0 && !piece.slice(0, colon).includes(':')) out.push(piece.slice(0, colon));
  }
  return out;
}

/** The program name of an argument (`/usr/bin/sudo` → `sudo`), lower-cased. */
const programOf = (word: string): string => path.posix.basename(word).toLowerCase();

/** Removes leading assignments and wrapper programs (with their options) from a segment. */
function unwrap(words: string[]): string[] {
  let rest = words;
  for (let guard = 0; guard < 32 && rest.length > 0; guard += 1) {
    const first = rest[0]!;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first)) {
      rest = rest.slice(1);
      continue;
    }
    if (!WRAPPERS.has(programOf(first))) break;
    let i = 1;
    while (i < rest.length) {
      const word = rest[i]!;
      if (word === '--') {
        i += 1;
        break;
      }
      if (word.startsWith('-')) {
        i += WRAPPER_VALUE_OPTIONS.has(word) ? 2 : 1;
      } else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) || /^\d+(\.\d+)?[smhd]?$/.test(word)) {
        // env's assignments, timeout's and nice's numbers
        i += 1;
      } else break;
    }
    rest = rest.slice(i);
  }
  return rest;
}

/** The script a shell runs with `-c` (also `-lc`, `-ec`…), if any. */
function shellScript(words: string[]): string | undefined {
  for (let i = 1; i < words.length; i += 1) {
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(words[i]!)) return words[i + 1];
  }
  return undefined;
}

/** git's subcommand, past its global options. */
function gitSubcommand(words: string[]): string | undefined {
  let i = 1;
  while (i < words.length && words[i]!.startsWith('-')) {
    i += GIT_VALUE_OPTIONS.has(words[i]!) ? 2 : 1;
  }
  return words[i]?.toLowerCase();
}

interface ScreenState {
  readOnlyGit: boolean;
  segments: number;
  words: number;
}

function screenSegment(
  words: string[],
  depth: number,
  state: ScreenState,
): CommandPolicyDecision | undefined {
  const seen = new Set<string>();
  for (const word of words) {
    for (const host of hostCandidates(word)) {
      if (seen.has(host)) continue;
      seen.add(host);
      if (isMetadataHost(host))
        return reject(
          'command_rejected',
          'metadata/private endpoint access is not allowed by default policy',
        );
    }
  }
  for (const word of words) {
    if (DENIED_PROGRAMS.has(programOf(word)))
      return reject(
        'command_rejected',
        `\`${programOf(word)}\` command is not allowed by default policy`,
      );
  }
  // `env -S "…"` splits its argument into a command line.
  const split = words.findIndex((word) => word === '-S' || word.startsWith('--split-string'));
  if (split > 0 && programOf(words[0]!) === 'env') {
    const text = words[split]!.includes('=')
      ? words[split]!.split('=').slice(1).join('=')
      : words[split + 1];
    if (text) {
      const found = screen(text, depth + 1, state);
      if (found) return found;
    }
  }
  const command = unwrap(words);
  if (command.length === 0) return undefined;
  const program = programOf(command[0]!);
  if (program === 'eval') return screen(command.slice(1).join(' '), depth + 1, state);
  if (SHELLS.has(program)) {
    const script = shellScript(command);
    if (script !== undefined) return screen(script, depth + 1, state);
  }
  if (program === 'rm') {
    const recursive = command
      .slice(1)
      .some(
        (word) => word === '--recursive' || (/^-[^-]/.test(word) && /[rR]/.test(word.slice(1))),
      );
    if (recursive)
      return reject('command_rejected', 'recursive rm is not allowed by default policy');
  }
  if (program === 'git') {
    // `-c alias.x=push` (or an ext:: transport) would turn a harmless word into anything.
    if (
      command.some((word) => /^(alias\.|protocol\.|core\.(sshcommand|pager|fsmonitor))/i.test(word))
    )
      return reject(
        'command_rejected',
        'git configuration overrides are not allowed by default policy',
      );
    const sub = gitSubcommand(command);
    if (sub && DESTRUCTIVE_GIT.has(sub))
      return reject('command_rejected', `git ${sub} is not allowed by default policy`);
    if (sub && READ_ONLY_GIT.has(sub)) state.readOnlyGit = true;
  }
  return undefined;
}

/** Screens one command text: its segments, and every nested command substitution. */
function screen(
  command: string,
  depth: number,
  state: ScreenState,
): CommandPolicyDecision | undefined {
  if (depth > MAX_DEPTH)
    return reject('command_rejected', 'command nesting is too deep for the default policy');
  // Command substitutions inside words ("$(…)" in double quotes, backticks) are screened too.
  for (const match of command.matchAll(/`([^`]*)`|\$\(([^()]*)\)/g)) {
    const inner = match[1] ?? match[2] ?? '';
    const found = screen(inner, depth + 1, state);
    if (found) return found;
  }
  const text = normalise(command);
  if (text === undefined) return reject('invalid_command', 'unbalanced quotes in command');
  let entries: ParseEntry[];
  try {
    entries = shellQuote().parse(text, (name) => `$${name}`);
  } catch (error) {
    return reject('invalid_command', (error as Error).message);
  }
  state.words += entries.length;
  if (state.words > MAX_WORDS)
    return reject('invalid_command', `command has more than ${MAX_WORDS} words`);
  let words: string[] = [];
  const flush = (): CommandPolicyDecision | undefined => {
    if (words.length === 0) return undefined;
    state.segments += 1;
    const found = screenSegment(words, depth, state);
    words = [];
    return found;
  };
  for (const entry of entries) {
    if (typeof entry === 'string') words.push(entry);
    // Comments were removed by `normalise`; anything left that parses as one is screened as code.
    else if ('comment' in entry) {
      const found = flush() ?? screen(entry.comment, depth + 1, state);
      if (found) return found;
    } else if ('pattern' in entry) words.push(entry.pattern);
    else {
      const found = flush();
      if (found) return found;
    }
  }
  return flush();
}

/**
 * The command screen `run_command` applies before anything runs, kept as a
 * first screen with its result shapes — **not** the security boundary: that is the backend
 * (bubblewrap or e2b, network off unless configured). The command is parsed with `shell-quote`;
 * every segment (`;`, `&&`, `||`, `|`, `&`, subshells), every `sh -c`/`eval` script, every
 * `$(…)` and backtick substitution, and the command behind wrappers (`env`, `nohup`,
 * `timeout`, `xargs`…) is screened. Rejected: `sudo`/`su`/`doas`/`pkexec`/`kubectl`/`docker`/
 * `podman` anywhere (also by absolute path), recursive `rm`, `git reset|clean|push|checkout`
 * (past global options such as `-C .`), and any cloud metadata address in any form (decimal,
 * hex, octal, IPv4-mapped IPv6, `metadata.google.internal`…). Read-only git alone is allowed
 * with reason `read_only_git`.
 *
 * @example
 * ```ts
 * console.log(checkCommandPolicy('ls; /usr/bin/sudo id').ok); // false
 * const decision = checkCommandPolicy('git status');
 * if (decision.ok) console.log(decision.reason); // "read_only_git"
 * ```
 */
export function checkCommandPolicy(command: string): CommandPolicyDecision {
  const text = typeof command === 'string' ? command.trim() : '';
  if (!text) return reject('command_required', 'command is required');
  if (text.length > MAX_COMMAND_CHARS)
    return reject('invalid_command', `command is longer than ${MAX_COMMAND_CHARS} characters`);
  if (text.includes('\0')) return reject('invalid_command', 'command must not contain NUL');
  const state: ScreenState = { readOnlyGit: false, segments: 0, words: 0 };
  const found = screen(text, 0, state);
  if (found) return found;
  if (state.segments === 0) return reject('command_required', 'command is required');
  return {
    ok: true,
    decision: 'allow',
    reason: state.readOnlyGit && state.segments === 1 ? 'read_only_git' : 'default_allow',
  };
}
