/**
 * A small structural check of JSON against the OpenAPI schemas the admin API documents: every required
 * property present, no property the schema does not list (unless it allows more), arrays and nested objects
 * checked item by item, `$ref`s resolved in the document's components, `oneOf` passing if any branch
 * passes, and primitive types (`integer`, `number`, `string`, `boolean`, `null`, `enum`) checked. Enough to
 * catch a source whose answer drifted from the documented shape; not a full JSON Schema validator.
 */

type Schema = Record<string, any>;

/** Every mismatch between `value` and `schema`, as `path: problem` lines (empty when it fits). */
export function shapeProblems(
  value: unknown,
  schema: Schema,
  doc: { components: { schemas: Record<string, Schema> } },
  path = "$",
): string[] {
  if (schema.$ref) {
    const name = String(schema.$ref).replace("#/components/schemas/", "");
    const target = doc.components.schemas[name];
    if (!target) return [`${path}: unknown $ref ${schema.$ref}`];
    return shapeProblems(value, target, doc, path);
  }
  if (schema.oneOf) {
    const branches = (schema.oneOf as Schema[]).map((s) => shapeProblems(value, s, doc, path));
    return branches.some((b) => b.length === 0) ? [] : branches.flat();
  }
  if (schema.enum)
    return (schema.enum as unknown[]).includes(value)
      ? []
      : [`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`];
  switch (schema.type) {
    case "null":
      return value === null ? [] : [`${path}: expected null`];
    case "integer":
      return Number.isInteger(value) ? [] : [`${path}: expected an integer, got ${JSON.stringify(value)}`];
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? [] : [`${path}: expected a number, got ${JSON.stringify(value)}`];
    case "string":
      return typeof value === "string" ? [] : [`${path}: expected a string`];
    case "boolean":
      return typeof value === "boolean" ? [] : [`${path}: expected a boolean`];
    case "array":
      if (!Array.isArray(value)) return [`${path}: expected an array`];
      return schema.items ? value.flatMap((v, i) => shapeProblems(v, schema.items, doc, `${path}[${i}]`)) : [];
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return [`${path}: expected an object`];
      const obj = value as Record<string, unknown>;
      const props: Record<string, Schema> = schema.properties ?? {};
      const problems: string[] = [];
      for (const key of schema.required ?? []) if (!(key in obj)) problems.push(`${path}.${key}: missing`);
      for (const [key, v] of Object.entries(obj)) {
        if (props[key]) for (const p of shapeProblems(v, props[key], doc, `${path}.${key}`)) problems.push(p);
        else if (schema.additionalProperties && typeof schema.additionalProperties === "object")
          for (const item of shapeProblems(v, schema.additionalProperties, doc, `${path}.${key}`)) problems.push(item);
        else if (schema.properties && schema.additionalProperties === undefined) problems.push(`${path}.${key}: not in the schema`);
      }
      return problems;
    }
    default:
      return [];
  }
}
