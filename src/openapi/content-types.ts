// OpenAPI: content types of the light modules (delivery/content-types.ts) as JSON schemas.
import type { ContentType } from '../delivery/content-types.js';
import type { Json } from './document-types.js';

export { loadContentTypes, parseContentType, type ContentType, type ContentTypeProperty } from '../delivery/content-types.js';

function valueSchema(type: string): Json {
  switch (type.toLowerCase()) {
    case 'boolean': return { type: 'boolean' };
    case 'long': return { type: 'integer' };
    case 'double': case 'decimal': return { type: 'number' };
    case 'date': return { type: 'string', format: 'date-time' };
    case 'string': case 'richtext': return { type: 'string' };
    // An asset or another content type: its id, or the object a reference resolver expands it to.
    default: return { description: `A ${type} reference (an object when the endpoint expands it)` };
  }
}

/** The schema of a node of this type: the generic node plus the model's properties (all optional: `properties=` may leave any out). */
export function contentTypeSchema(t: ContentType): Json {
  const properties: Record<string, Json> = {};
  for (const p of t.properties) {
    // Multi-valued properties render as arrays of strings (delivery/render-value.ts).
    const schema = p.multiple ? { type: 'array', items: { type: 'string' } } : valueSchema(p.type);
    properties[p.name] = p.label !== undefined ? { ...schema, title: p.label } : schema;
  }
  return {
    description: `Content type ${t.name} (module ${t.module}, workspace ${t.workspace})`,
    allOf: [{ $ref: '#/components/schemas/Node' }, { type: 'object', properties }],
  };
}

/** A component name for the type: unique across modules, and a valid OpenAPI component key. */
export function schemaNameOf(t: ContentType): string {
  return `${t.module}_${t.name}`.replace(/[^A-Za-z0-9._-]/g, '_');
}
