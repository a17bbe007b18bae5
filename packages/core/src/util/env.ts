import path from 'node:path';

/**
 * Reads a non-negative integer variable: absent or blank → `undefined`; not an integer →
 * `undefined` (the caller's default applies); negative → 0.
 */
export function intFromEnv(name: string, env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env[name]?.trim();
  if (!raw || !/^-?\d+$/.test(raw)) return undefined;
  return Math.max(0, Number.parseInt(raw, 10));
}

/**
 * The local session directory: `AGENTENGINE_UI_DIR` when set, else
 * `<KSADK_PROJECT_DIR or cwd>/.agentengine/ui`.
 */
export function localSessionDir(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env['AGENTENGINE_UI_DIR']?.trim();
  if (explicit) return path.resolve(explicit);
  const project = env['KSADK_PROJECT_DIR']?.trim() || process.cwd();
  return path.resolve(project, '.agentengine', 'ui');
}
