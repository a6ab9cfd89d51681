// Cordis config schemas derived from the zod schemas that validate the same options: types, ranges, defaults and
// descriptions live once, in zod (the configuration reference is rendered from the same source).
import Schema from 'schemastery';
import { z } from 'zod';

interface Json {
  type?: string;
  properties?: Record<string, Json>;
  additionalProperties?: boolean | Json;
  items?: Json;
  anyOf?: Json[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  default?: unknown;
  description?: string;
}

/** The schemastery schema accepting what `schema` accepts, with its defaults and descriptions. */
export function fromZod<T>(schema: z.ZodType): Schema<T> {
  const json = z.toJSONSchema(schema, { io: 'input' }) as Json;
  return convert(json, '') as Schema<T>;
}

function convert(json: Json, path: string): Schema {
  let out = shape(json, path);
  if ('default' in json) out = out.default(json.default);
  // schemastery fills an absent array with [] by itself; an option without a default must stay absent (an empty
  // `includeOnly` would let no variable through).
  else if (json.type === 'array') out = Schema.union([Schema.const(undefined), out]);
  if (path) {
    // A missing description is a programming error caught by the plugin tests, not a runtime condition.
    if (json.description === undefined) throw new Error(`no description for option ${path}`);
    out = out.description(json.description);
  }
  return out;
}

function shape(json: Json, path: string): Schema {
  if (json.anyOf) return Schema.union(json.anyOf.map((member) => shape(member, path)));
  if (json.enum) return Schema.union(json.enum.map((value) => Schema.const(value)));
  switch (json.type) {
    case 'null':
      return Schema.const(null);
    case 'boolean':
      return Schema.boolean();
    case 'string':
      return Schema.string();
    case 'integer':
    case 'number': {
      const min = json.minimum ?? (json.exclusiveMinimum === undefined ? undefined : json.exclusiveMinimum + 1);
      let out = json.type === 'integer' && min !== undefined && min >= 0 ? Schema.natural() : Schema.number();
      if (min !== undefined) out = out.min(min);
      if (json.maximum !== undefined && json.maximum < Number.MAX_SAFE_INTEGER) out = out.max(json.maximum);
      return out;
    }
    case 'array':
      return Schema.array(shape(json.items ?? {}, path));
    case 'object': {
      if (json.properties) {
        const entries = Object.entries(json.properties).map(([key, value]) => [key, convert(value, path ? `${path}.${key}` : key)]);
        return Schema.object(Object.fromEntries(entries));
      }
      if (typeof json.additionalProperties === 'object') return Schema.dict(shape(json.additionalProperties, path));
      return Schema.dict(Schema.any());
    }
    default:
      return Schema.any();
  }
}
