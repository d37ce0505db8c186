import type { ConversionConfig } from '@valibot/to-json-schema';

/**
 * How /openapi.json and the MCP tool schemas turn valibot into JSON Schema: draft 2020-12, with our own
 * actions rendered as the keyword they mean (see max-code-points.ts and json-object.ts).
 */
export const JSON_SCHEMA_CONFIG = {
  target: 'draft-2020-12',
  overrideAction({ valibotAction, jsonSchema }) {
    const action = valibotAction as { type: string; requirement?: unknown };
    if (action.type === 'max_code_points') return { ...jsonSchema, maxLength: action.requirement as number };
    // `type: object` already refuses arrays.
    if (action.type === 'not_array') return jsonSchema;
    return undefined;
  },
} as const satisfies ConversionConfig;
