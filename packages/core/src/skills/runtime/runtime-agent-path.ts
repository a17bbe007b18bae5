import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const AGENT_FILE = path.join('bin', 'ksadk-skill-runtime.mjs');

/**
 * The bundled runtime agent (`bin/ksadk-skill-runtime.mjs` of `@ksadk/core`), found by walking
 * up from this module to the package root — the same from the source tree and from `dist/`.
 */
export function bundledRuntimeAgentPath(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 6; depth += 1) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        const name = (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name;
        if (name === '@ksadk/core' && existsSync(path.join(dir, AGENT_FILE)))
          return path.join(dir, AGENT_FILE);
      } catch {
        // Not ours; keep walking.
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(
    'the KsADK runtime agent (bin/ksadk-skill-runtime.mjs) was not found next to @ksadk/core',
  );
}
