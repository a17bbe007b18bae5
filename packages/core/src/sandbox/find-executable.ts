import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

function isExecutableFile(candidate: string): boolean {
  try {
    if (!statSync(candidate).isFile()) return false;
    accessSync(candidate, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The absolute path of an executable: `name` itself when it holds a `/`, else the first match
 * on `searchPath` (a `PATH` value; empty or relative entries are skipped). `undefined` when
 * there is none.
 */
export function findExecutable(name: string, searchPath: string | undefined): string | undefined {
  if (name.includes('/')) {
    const absolute = path.resolve(name);
    return isExecutableFile(absolute) ? absolute : undefined;
  }
  for (const dir of (searchPath ?? '').split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}
