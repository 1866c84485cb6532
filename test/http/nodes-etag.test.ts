// The Nodes and Properties APIs' ETags (http/routes/nodes-etag.ts): the state part follows the node's
// stored state only, and If-Match compares that part of any ETag it lists (weak or strong, or `*`).
import { describe, expect, it } from 'vitest';
import { ifMatchCondition, ifMatchStates, nodeEtag, nodeState } from '../../src/http/routes/nodes-etag.js';
import type { NodeRecord } from '../../src/store/rows.js';

const node = (over: Partial<NodeRecord> = {}): NodeRecord => ({
  id: 'b6f0', workspace: 'website', path: '/a', parentPath: '/', name: 'a', depth: 1, position: 0,
  type: 'cms:page', mixins: [], properties: [['title', 'String', 'A']], ...over,
}) as NodeRecord;

describe('node ETags', () => {
  it('is "{identifier}.{state}.{representation}": the state follows the stored node, the last part the body', () => {
    const etag = nodeEtag(node(), '{"a":1}');
    expect(etag).toMatch(/^"b6f0\.[^."]+\.[^."]+"$/);
    expect(etag.startsWith(`"${nodeState(node())}.`)).toBe(true);
    expect(nodeEtag(node(), '{"a":2}')).not.toBe(etag);
    expect(nodeState(node({ position: 3 }))).toBe(nodeState(node())); // order among siblings is not the node's state
    expect(nodeState(node({ properties: [['title', 'String', 'B']] }))).not.toBe(nodeState(node()));
  });

  it('reads the state parts of an If-Match header, weak or strong, `*` as it is', () => {
    expect(ifMatchStates(undefined)).toBeUndefined();
    expect(ifMatchStates('"x.s.r", W/"y.t.u" , *')).toEqual(['x.s', 'y.t', '*']);
    expect(ifMatchStates(['"x.s.r"', '"z"'])).toEqual(['x.s', 'z']);
  });

  it('makes the store condition: the node at the path matches one of the states, or any node for `*`', () => {
    const state = nodeState(node());
    expect(ifMatchCondition(undefined, '/a')).toBeUndefined();
    const c = ifMatchCondition(`"${state}.whatever"`, '/a')!;
    expect(c.path).toBe('/a');
    expect(c.matches(node())).toBe(true);
    expect(c.matches(node({ type: 'cms:folder' }))).toBe(false);
    expect(ifMatchCondition('*', '/a')!.matches(node({ type: 'cms:folder' }))).toBe(true);
  });
});
