// Repository layer: the system properties Petal maintains on every node a caller writes (the Nodes and
// Properties APIs, imports over HTTP), so that nobody can forge who created or changed a node, or when.
import type { StoredProperty } from '../model/property-type.js';
import { ACTIVATION_PROPERTIES, ACTIVATION_STATUS, STATUS } from './publishing.js';

/** Maintained by every write; a caller's values for them are ignored (they cannot be forged). */
export const MAINTAINED_PROPERTIES: ReadonlySet<string> = new Set([
  'cms:created', 'cms:createdBy', 'cms:lastModified', 'cms:lastModifiedBy',
  // JCR's own (mix:created, mix:lastModified) are protected in the original: never taken from a caller.
  'jcr:created', 'jcr:createdBy', 'jcr:lastModified', 'jcr:lastModifiedBy',
]);

/** The instant as stored Date values are: ISO 8601 with milliseconds and an explicit offset. */
export function storedNow(date = new Date()): string {
  return date.toISOString().replace('Z', '+00:00');
}

/** A property only Petal writes: the audit ones always, the activation ones when publishing is on. */
export function isMaintained(name: string, publishing: boolean): boolean {
  return MAINTAINED_PROPERTIES.has(name) || (publishing && ACTIVATION_PROPERTIES.has(name));
}

export interface Stamp {
  /** Who writes: `cms:createdBy` (of a new node) and `cms:lastModifiedBy`. */
  readonly by: string;
  /** When (as storedNow). */
  readonly now: string;
  /** A new node: `cms:created*` too. */
  readonly created: boolean;
  readonly publishing: boolean;
}

/**
 * Sets the maintained properties on `properties` (in place, and returns it): all four on a new node,
 * the last-modified pair on a changed one; with publishing on, a published node becomes "modified".
 */
export function stampMaintained(properties: StoredProperty[], s: Stamp): StoredProperty[] {
  const set = (name: string, type: 'Date' | 'String', value: string) => {
    const at = properties.findIndex(([n]) => n === name);
    if (at === -1) properties.push([name, type, value]);
    else properties[at] = [name, type, value];
  };
  if (s.created) {
    set('cms:created', 'Date', s.now);
    set('cms:createdBy', 'String', s.by);
  }
  set('cms:lastModified', 'Date', s.now);
  set('cms:lastModifiedBy', 'String', s.by);
  // As the original: a published node changed since is "modified" (until published again).
  if (s.publishing && properties.some(([n, , v]) => n === ACTIVATION_STATUS && v === STATUS.published)) {
    set(ACTIVATION_STATUS, 'String', STATUS.modified);
  }
  return properties;
}
