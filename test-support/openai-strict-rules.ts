// For the tests of every package: an independent check of a schema sent with `strict: true`,
// written from OpenAI's Structured Outputs guide ("Supported schemas") — not from our converter —
// so a strict schema that OpenAI would answer with a 400 fails a test here first. Imports nothing
// from the packages.

/** Keywords the guide lists (plus minLength/maxLength, which the API accepts). */
const KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'enum',
  'const',
  '$ref',
  '$defs',
  'definitions',
  'description',
  'title',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
]);
const FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every way `schema` breaks the published rules for strict function parameters; empty: none. */
export function openAIStrictViolations(schema: unknown): string[] {
  const problems: string[] = [];
  if (!isObject(schema)) return ['the root is not an object schema'];
  if (schema['type'] !== 'object') problems.push('the root type is not "object"');
  if ('anyOf' in schema) problems.push('the root is a union (anyOf)');
  const visit = (node: unknown, at: string, depth: number): void => {
    if (!isObject(node)) {
      problems.push(`${at}: a schema must be an object`);
      return;
    }
    if (depth > 10) problems.push(`${at}: nested deeper than 10 levels`);
    for (const key of Object.keys(node))
      if (!KEYWORDS.has(key)) problems.push(`${at}: keyword "${key}" is not supported`);
    if ('format' in node && !FORMATS.has(String(node['format'])))
      problems.push(`${at}: format "${String(node['format'])}" is not supported`);
    const types = Array.isArray(node['type'])
      ? node['type']
      : node['type'] === undefined
        ? []
        : [node['type']];
    for (const type of types)
      if (!TYPES.has(String(type))) problems.push(`${at}: type "${String(type)}"`);
    if (typeof node['$ref'] === 'string' && !node['$ref'].startsWith('#'))
      problems.push(`${at}: an external $ref`);
    if (types.includes('object') || 'properties' in node) {
      if (node['additionalProperties'] !== false)
        problems.push(`${at}: an object without additionalProperties: false`);
      const properties = isObject(node['properties']) ? node['properties'] : {};
      const required = Array.isArray(node['required']) ? node['required'] : [];
      for (const key of Object.keys(properties))
        if (!required.includes(key)) problems.push(`${at}: property "${key}" is not required`);
      for (const [key, value] of Object.entries(properties))
        visit(value, `${at}/properties/${key}`, depth + 1);
    }
    if (types.includes('array') || 'items' in node) {
      if (!isObject(node['items'])) problems.push(`${at}: an array without one items schema`);
      else visit(node['items'], `${at}/items`, depth + 1);
    }
    if (Array.isArray(node['anyOf']))
      for (const [index, branch] of node['anyOf'].entries())
        visit(branch, `${at}/anyOf/${index}`, depth + 1);
    for (const table of ['$defs', 'definitions'])
      if (isObject(node[table]))
        for (const [name, value] of Object.entries(node[table]))
          visit(value, `${at}/${table}/${name}`, depth);
  };
  visit(schema, '#', 0);
  return problems;
}
