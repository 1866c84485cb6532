// The `petal types` command: TypeScript types of the endpoints the public (anonymous caller) may call,
// from the same OpenAPI document `/.rest/openapi.json` serves it.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load-config.js';
import { pickSite } from '../config/pick-site.js';
import { loadDefinitions } from '../delivery/load-definitions.js';
import { EndpointRegistry } from '../delivery/endpoint-registry.js';
import { SecurityService } from '../security/security-service.js';
import { buildOpenApiDocument } from './build-document.js';
import { generateTypes } from './generate-types.js';
import { loadContentTypes } from './content-types.js';
import { buildGraphql, graphqlSettingsOf } from '../graphql/graphql-api.js';
import { schemaTypes } from '../graphql/schema-types.js';

export const TYPES_USAGE = `Usage: petal types [--out FILE] [--graphql-schema FILE] [--graphql-types FILE] [--config petal.yaml]
  Writes TypeScript types (openapi-typescript) of the endpoints an anonymous caller may call, as
  described by /.rest/openapi.json, to FILE (default: standard output).
  --graphql-schema FILE   the GraphQL API's schema (SDL), as /.graphql answers introspection
  --graphql-types FILE    TypeScript types of that schema, with PetalQuery<Result, Variables> for typed documents
  With only --graphql-* options, no OpenAPI types are written.
`;

export async function typesCommand(args: string[], version: string): Promise<number> {
  const { values, positionals } = parseArgs({
    args, options: {
      out: { type: 'string' }, config: { type: 'string' }, help: { type: 'boolean' },
      'graphql-schema': { type: 'string' }, 'graphql-types': { type: 'string' },
    }, allowPositionals: true,
  });
  if (values.help) { process.stdout.write(TYPES_USAGE); return 0; }
  if (positionals.length > 0) {
    process.stderr.write(`petal types: unexpected argument ${JSON.stringify(positionals[0])}\n\n${TYPES_USAGE}`);
    return 2;
  }
  const config = loadConfig(values.config !== undefined ? { config: values.config } : {});
  const schemaOut = values['graphql-schema'];
  const typesOut = values['graphql-types'];
  if (schemaOut !== undefined || typesOut !== undefined) {
    const build = buildGraphql(config.modules, graphqlSettingsOf(config.graphql, process.env.NODE_ENV));
    for (const p of build.problems) process.stderr.write(`petal types: ${p}\n`);
    if (schemaOut !== undefined) writeFileSync(schemaOut, build.sdl);
    if (typesOut !== undefined) writeFileSync(typesOut, schemaTypes(build.built.schema));
    if (values.out === undefined) return 0;
  }
  const load = await loadDefinitions([...config.modules]);
  for (const p of load.problems.filter((x) => x.severity === 'error')) process.stderr.write(`petal types: ${p.file}: ${p.reason}\n`);
  const registry = new EndpointRegistry(load);
  const security = new SecurityService(config.security);
  const doc = buildOpenApiDocument({
    endpoints: registry.list(), access: security.uriAccess(security.anonymous()), contextPath: config.contextPath,
    locales: pickSite(config).locales, publishing: config.publishing !== undefined, shop: true, version, contentTypes: loadContentTypes(config.modules),
  });
  const text = await generateTypes(doc);
  if (values.out !== undefined) writeFileSync(values.out, text);
  else process.stdout.write(text);
  return 0;
}
