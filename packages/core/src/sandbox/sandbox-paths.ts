import path from 'node:path';
import { KsadkError } from '../errors/ksadk-error.js';
import { echoValue } from '../util/sanitize-message.js';

/** Longest session path accepted, in characters. */
const MAX_PATH_CHARS = 4096;

/** Why a session path was refused (`details.reason` of the thrown {@link KsadkError}). */
export type SandboxPathRefusal = 'path_outside_sandbox' | 'invalid_path';

/** A refused session path, as thrown by the file operations of every backend. */
export function sandboxPathError(
  reason: SandboxPathRefusal,
  message: string,
  input: unknown,
): KsadkError {
  return new KsadkError('unsupported', `${message}: ${echoValue(String(input))}`, {
    details: { reason, path: echoValue(String(input)) },
  });
}

/**
 * Checks a session path without touching any file system: a string, relative (no leading `/`),
 * no NUL byte, no `..` that leaves the root, at most 4,096 characters. Returns the normalised
 * relative path (`.` for the root) or throws `KsadkError('unsupported')` whose
 * `details.reason` is `path_outside_sandbox` or `invalid_path`.
 */
export function normalizeSandboxPath(input: unknown): string {
  if (typeof input !== 'string')
    throw sandboxPathError('invalid_path', 'a sandbox path must be a string', input);
  if (input.length > MAX_PATH_CHARS)
    throw sandboxPathError('invalid_path', 'the sandbox path is too long', input);
  if (input.includes('\0'))
    throw sandboxPathError('path_outside_sandbox', 'a sandbox path must not hold a NUL', input);
  if (input.startsWith('/')) {
    throw sandboxPathError(
      'path_outside_sandbox',
      'path must be relative to the sandbox root',
      input,
    );
  }
  const normalized = path.posix.normalize(input === '' ? '.' : input).replace(/\/+$/, '');
  if (normalized === '..' || normalized.startsWith('../')) {
    throw sandboxPathError('path_outside_sandbox', 'path must stay inside the sandbox root', input);
  }
  return normalized === '' ? '.' : normalized;
}

/** The segments of a normalised path (none for the root). */
export function pathSegments(normalized: string): string[] {
  return normalized === '.' ? [] : normalized.split('/');
}

/** Whether `candidate` (a real path) is `root` or inside it. */
export function isInsideRoot(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith('/') ? root : `${root}/`);
}
