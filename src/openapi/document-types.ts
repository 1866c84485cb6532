// OpenAPI: the few shapes the builder writes; schemas and the rest stay plain JSON.
export type Json = Readonly<Record<string, unknown>>;
export type Responses = Readonly<Record<string, Json>>;

export interface Operation {
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly parameters?: readonly Json[];
  readonly requestBody?: Json;
  readonly responses: Responses;
  readonly security?: readonly Json[];
}

export type Method = 'get' | 'put' | 'post' | 'delete';
export type PathItem = Partial<Record<Method, Operation>> & { readonly parameters?: readonly Json[] };

export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: { readonly title: string; readonly version: string; readonly description?: string };
  readonly servers: readonly { readonly url: string }[];
  readonly tags: readonly { readonly name: string; readonly description?: string }[];
  readonly paths: Readonly<Record<string, PathItem>>;
  readonly components: {
    readonly schemas: Json;
    readonly responses: Json;
    readonly securitySchemes: Json;
  };
  readonly security: readonly Json[];
}
