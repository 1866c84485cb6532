// Repository model: which nodes a non-recursive publish takes along with the node it publishes. As in
// the original, publishing a page publishes its content (areas, components, their resources, variants
// and metadata) but not its subpages: those are content of their own, published when their editor
// decides.
import type { NodeTypeRegistry } from './node-types.js';

/** Node types whose nodes belong to their parent's content rather than being content of their own. */
export const TAKEN_ALONG_TYPES: readonly string[] = ['cms:contentNode', 'nt:resource', 'cms:componentVariants', 'cms:metaData'];

/** The `takenAlong` predicate of a StateRequest: the type is (or is a sub type of) one of TAKEN_ALONG_TYPES. */
export function takenAlongBy(types: NodeTypeRegistry): (type: string) => boolean {
  return (type) => TAKEN_ALONG_TYPES.some((t) => types.isA(type, t));
}
