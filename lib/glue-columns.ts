import resultSchema from '../assets/schema/result.schema.json';

export type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; additionalProperties?: boolean | JsonSchema; items?: JsonSchema; description?: string };

/** Glue (Hive) type of a JSON Schema node: the same mapping the DuckDB reader uses (runner/report/results-db.ts), in Hive spelling. */
function glueType(s: JsonSchema): string {
  const type = (Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type) ?? 'string';
  switch (type) {
    case 'string': return 'string';
    case 'integer': return 'bigint';
    case 'number': return 'double';
    case 'boolean': return 'boolean';
    case 'array': return `array<${glueType(s.items ?? {})}>`;
    case 'object':
      if (s.properties) return `struct<${Object.entries(s.properties).map(([k, v]) => `${k}:${glueType(v)}`).join(',')}>`;
      return 'map<string,string>';
    default: throw new Error(`no Glue type for JSON Schema type ${type}`);
  }
}

/** The Glue table columns of a schema's records (in schema order): result records (assets/schema/result.schema.json) by default. */
export function resultColumns(schema: JsonSchema = resultSchema as JsonSchema): { name: string; type: string; comment?: string }[] {
  const props = schema.properties!;
  return Object.entries(props).map(([name, s]) => ({
    name,
    type: glueType(s),
    ...(s.description ? { comment: s.description.slice(0, 255) } : {}),
  }));
}
