/**
 * The Python KsADK's other spelling of a `save_memory` call, `{ key, value }`, as the one this
 * toolset takes: `{ content: "key: value" }` (a non-string value as JSON). Other arguments are
 * returned as they are. The dispatcher applies it to calls it routes to `save_memory`.
 */
export function normalizeSaveMemoryArguments(
  args: Record<string, unknown>,
): Record<string, unknown> {
  if (args['content'] !== undefined || !('key' in args) || !('value' in args)) return args;
  const { key, value, ...rest } = args;
  return {
    ...rest,
    content: `${String(key)}: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
  };
}
