/**
 * The decision an ADK confirmation carries: `confirmed: false` always rejects; `confirmed: true`
 * approves, or does what its payload says — `{ action: 'edit', args }` (edit, then approve),
 * `{ action: 'reject' }`, `always: 'session' | 'user'`, `until`, `match`, `reason`. Only those
 * top-level payload fields are read, so a payload that echoes the pause back adds nothing.
 */
export function decisionOfConfirmation(confirmation: {
  confirmed?: unknown;
  payload?: unknown;
}): Record<string, unknown> {
  const payload =
    typeof confirmation.payload === 'object' && confirmation.payload !== null
      ? (confirmation.payload as Record<string, unknown>)
      : {};
  const picked: Record<string, unknown> = {};
  for (const key of ['action', 'args', 'always', 'until', 'match', 'reason'] as const)
    if (Object.hasOwn(payload, key)) picked[key] = payload[key];
  if (confirmation.confirmed !== true) return { ...picked, action: 'reject' };
  return { action: 'approve', ...picked };
}
