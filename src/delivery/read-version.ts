// Delivery layer: the `version` parameter. On Read node it selects a stored version of the node, whose
// frozen rows then render like the live ones (depth, properties, i18n, references); the other methods
// refuse it. A version is reached through its node: a node the caller cannot read (or the endpoint does
// not serve) answers pathNotFound whatever the version, so versions reveal nothing about it.
import { PetalError } from '../errors.js';
import type { Session } from '../repository/session.js';
import type { NodeRecord } from '../store/rows.js';
import { VERSION_NAME } from '../store/versions.js';
import type { CompiledEndpoint } from './compile-endpoint.js';
import { firstValue, type QueryParams } from './parse-request.js';

/** At most this much of a bad value is quoted back. */
const ECHO_MAX = 40;

function quoted(raw: string): string {
  return JSON.stringify(raw.length > ECHO_MAX ? `${raw.slice(0, ECHO_MAX)}…` : raw);
}

/**
 * The requested version name; undefined when absent or empty (`version=` is no request, as `lang=` is
 * none). A value that is not `<digits>.<digits>` (`abc`, `1`, `1.0.0`) → 400 naming the parameter.
 */
export function versionParam(query: QueryParams): string | undefined {
  const raw = firstValue(query.version);
  if (raw === undefined || raw === '') return undefined;
  if (!VERSION_NAME.test(raw)) {
    throw new PetalError('badRequest', `version: expected a version name such as 1.0 or 1.1, got ${quoted(raw)}`);
  }
  return raw;
}

/** Get children and Query nodes serve live content only: `version` there is a 400, not silently ignored. */
export function rejectVersion(query: QueryParams, method: 'Get children' | 'Query nodes'): void {
  const raw = firstValue(query.version);
  if (raw === undefined || raw === '') return;
  throw new PetalError('badRequest', `version: only Read node serves stored versions, not ${method}`);
}

/**
 * The rows of version `name` of the node at `path` (absolute in the endpoint's workspace), in
 * getSubtree's shape, down to the endpoint's depth; [] when the node is missing, not readable or of a
 * type the endpoint does not serve (the caller answers pathNotFound, as for the live node).
 */
export async function versionRows(
  session: Session, endpoint: CompiledEndpoint, path: string, name: string, shownPath: string, depth = endpoint.definition.depth,
): Promise<readonly NodeRecord[]> {
  const def = endpoint.definition;
  const found = await session.readVersion(def.workspace, path, name, depth);
  if (found.kind === 'noNode') return [];
  if (endpoint.nodeType !== null && !endpoint.nodeType(found.node.type)) return [];
  if (found.kind === 'noVersion') throw new PetalError('versionNotFound', `${shownPath}: version ${name} not found`);
  return found.rows;
}
