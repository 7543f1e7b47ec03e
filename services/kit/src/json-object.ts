/**
 * A JSON object whose members no type describes: a data table row's cells, a JSON scalar's value,
 * a parsed request body or query before it is checked, a GraphQL answer read by a mapper that
 * serves many documents. Where the shape is known, use its type (the generated operation types,
 * rest.yaml's schemas) instead.
 */
export type JsonObject = { [member: string]: unknown };

/** Whether `v` is a (non-array, non-null) object, readable member by member. */
export const isJsonObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
