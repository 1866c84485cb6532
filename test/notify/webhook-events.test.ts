// Webhooks (issue 18): which webhook event a change event is (publishing on or off), and what one
// webhook is sent of it: filters by event, workspace (logical), path (`*` within a segment, trailing
// `/*` a subtree), node type (mgnl: accepted), the payload, and truncated events.
import { describe, expect, it } from 'vitest';
import type { WebhookConfig } from '../../src/config/notify-config.js';
import type { ChangeEvent, ChangedNode } from '../../src/store/changes.js';
import { compileFilter, webhookEventOf, webhookPayload } from '../../src/notify/webhook-events.js';
import { changeKeys, nodeKey } from '../../src/repository/dependencies.js';

const node = (path: string, type = 'cms:page', from?: string): ChangedNode => ({ id: `id${path.replaceAll('/', '-')}`, path, type, ...(from ? { from } : {}) });

function event(more: Partial<ChangeEvent> = {}): ChangeEvent {
  return {
    sequence: 7, workspace: 'website', at: '2026-01-01T00:00:00.000Z', kind: 'nodes',
    created: [], changed: [], moved: [], removed: [], truncated: false, count: 0, ...more,
  };
}

const hook = (more: Partial<WebhookConfig> = {}) => compileFilter({ name: 'site', url: 'http://x', secretEnv: 'S', ...more });

describe('webhookEventOf', () => {
  it('maps kinds and workspaces to events, publishing on and off', () => {
    const cases: [Partial<ChangeEvent>, boolean, string | undefined][] = [
      [{ kind: 'nodes' }, true, 'changed'],
      [{ kind: 'import' }, false, 'imported'],
      [{ kind: 'publish', workspace: 'website@published' }, true, 'published'],
      [{ kind: 'unpublish', workspace: 'website@published' }, true, 'unpublished'],
      // Publishing on: the working workspace's version event and activation marks of a publish.
      [{ kind: 'publish', version: '1.0' }, true, undefined],
      [{ kind: 'publish' }, true, undefined],
      [{ kind: 'unpublish' }, true, undefined],
      // Publishing off: `petal publish` stores a version of the working workspace.
      [{ kind: 'publish', version: '1.0' }, false, 'published'],
      [{ kind: 'publish' }, false, undefined],
    ];
    for (const [e, publishing, expected] of cases) expect([e, publishing, webhookEventOf(event(e), publishing)]).toEqual([e, publishing, expected]);
  });
});

describe('webhookPayload', () => {
  it('sends the nodes, the logical workspace, the cache keys hit and a stable id', () => {
    const e = event({ kind: 'publish', workspace: 'website@published', created: [node('/home')], removed: [node('/old', 'cms:area')] });
    expect(webhookPayload(hook(), e, true)).toEqual({
      id: 'site-7', event: 'published', workspace: 'website', sequence: 7, at: '2026-01-01T00:00:00.000Z',
      nodes: [{ id: 'id-home', path: '/home', type: 'cms:page' }, { id: 'id-old', path: '/old', type: 'cms:area' }],
      tags: [...changeKeys(e)],
    });
    expect(webhookPayload(hook(), e, true)!.tags).toContain(nodeKey('website@published', '/home'));
  });

  it('filters by event and by logical workspace', () => {
    const e = event({ kind: 'unpublish', workspace: 'website@published', removed: [node('/home')] });
    expect(webhookPayload(hook({ events: ['published'] }), e, true)).toBeUndefined();
    expect(webhookPayload(hook({ events: ['unpublished'] }), e, true)?.event).toBe('unpublished');
    expect(webhookPayload(hook({ workspaces: ['dam'] }), e, true)).toBeUndefined();
    expect(webhookPayload(hook({ workspaces: ['website'] }), e, true)?.workspace).toBe('website');
  });

  it('keeps only the nodes matching the paths and types; none matching skips the event', () => {
    const e = event({ changed: [node('/travel'), node('/travel/a'), node('/travel/a/main', 'mgnl:area'), node('/news/b'), node('/travel2/x')] });
    const paths = (patterns: string[]) => webhookPayload(hook({ paths: patterns }), e, false)?.nodes.map((n) => n.path);
    expect(paths(['/travel/*'])).toEqual(['/travel/a', '/travel/a/main']);
    expect(paths(['/travel'])).toEqual(['/travel']);
    expect(paths(['/*/a'])).toEqual(['/travel/a']);
    expect(paths(['/trav*/*'])).toEqual(['/travel/a', '/travel/a/main', '/travel2/x']);
    expect(paths(['/*'])).toEqual(['/travel', '/travel/a', '/travel/a/main', '/news/b', '/travel2/x']);
    expect(paths(['/shop/*'])).toBeUndefined();
    const types = (t: string[]) => webhookPayload(hook({ nodeTypes: t }), e, false)?.nodes.map((n) => n.path);
    expect(types(['cms:area'])).toEqual(['/travel/a/main']);
    expect(types(['mgnl:area'])).toEqual(['/travel/a/main']);
    expect(types(['cms:component'])).toBeUndefined();
    // The tags are those of the nodes sent.
    const only = webhookPayload(hook({ paths: ['/news/*'] }), e, false)!;
    expect(only.tags).toContain(nodeKey('website', '/news/b'));
    expect(only.tags).not.toContain(nodeKey('website', '/travel'));
  });

  it('matches a moved node by where it was or where it went', () => {
    const e = event({ moved: [node('/archive/a', 'cms:page', '/travel/a')] });
    expect(webhookPayload(hook({ paths: ['/travel/*'] }), e, false)?.nodes).toEqual([{ id: 'id-archive-a', path: '/archive/a', type: 'cms:page' }]);
    expect(webhookPayload(hook({ paths: ['/news/*'] }), e, false)).toBeUndefined();
  });

  it('sends a truncated event to every webhook whose event and workspace match, with no nodes', () => {
    const e = event({ kind: 'import', truncated: true, count: 20_000 });
    expect(webhookPayload(hook({ paths: ['/travel/*'], nodeTypes: ['cms:page'] }), e, false)).toEqual({
      id: 'site-7', event: 'imported', workspace: 'website', sequence: 7, at: e.at, nodes: [], truncated: true, tags: [...changeKeys(e)],
    });
    expect(webhookPayload(hook({ workspaces: ['dam'] }), e, false)).toBeUndefined();
  });
});
