// Config layer: petal.yaml read and checked against its schema, each problem reported as a
// ConfigError with the file, the line of the key at fault and the reason.
import { isMap, isScalar, type Document } from 'yaml';
import { ConfigError } from './config-error.js';
import { configSchema, type RawConfig } from './config-schema.js';
import { parseConfigYaml, readYamlFileSync } from './yaml-file.js';

export function readConfigFile(file: string): RawConfig {
  let text: string;
  try {
    text = readYamlFileSync(file);
  } catch (err) {
    throw new ConfigError(file, err instanceof Error ? err.message : String(err));
  }
  const { doc, lines: lineCounter, data } = parseConfigYaml(file, text);
  const parsed = configSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // Unknown keys are reported on their mapping; point at the first unknown key itself.
    const keyPath = issue.code === 'unrecognized_keys' && issue.keys.length > 0
      ? [...issue.path.map(String), issue.keys[0]!]
      : issue.path.map(String);
    let line: number | undefined;
    const range = keyPath.length > 0 ? rangeOfKey(doc, keyPath) : undefined;
    if (range) line = lineCounter.linePos(range[0]).line;
    const shown = issue.code === 'unrecognized_keys' ? keyPath.slice(0, -1) : keyPath;
    const where = shown.length > 0 ? `${shown.join('.')}: ` : '';
    const reason = issue.code === 'unrecognized_keys' ? `unknown key(s) ${issue.keys.join(', ')}` : issue.message;
    throw new ConfigError(file, `${where}${reason}`, line);
  }
  return parsed.data;
}

/** Source range of the key (or, failing that, the value) at `keyPath`. */
function rangeOfKey(doc: Document, keyPath: readonly string[]): [number, number, number] | undefined {
  const parent = keyPath.length > 1 ? doc.getIn(keyPath.slice(0, -1), true) : doc.contents;
  if (isMap(parent)) {
    for (const pair of parent.items) {
      if (isScalar(pair.key) && String(pair.key.value) === keyPath[keyPath.length - 1]) {
        return pair.key.range ?? undefined;
      }
    }
  }
  const node = doc.getIn(keyPath, true) as { range?: [number, number, number] } | undefined;
  return node?.range;
}
