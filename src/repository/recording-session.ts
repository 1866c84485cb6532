// Repository layer: a session that records what each read depended on (repository/dependencies.ts), so a
// cached answer can be dropped by exactly the changes that hit it. Recorded after the read, whatever it
// found: a missing node, id or child is a dependency too (its creation changes the answer).
import type { Dependencies } from './dependencies.js';
import type { Session } from './session.js';
import { isPublishedWorkspace } from '../model/workspaces.js';

export function recordingSession(session: Session, deps: Dependencies | undefined): Session {
  if (deps === undefined) return session;
  return {
    types: session.types,
    getNode: async (ws, path) => {
      const node = await session.getNode(ws, path);
      deps.node(ws, path);
      return node;
    },
    getNodesByIds: async (ws, ids) => {
      const nodes = await session.getNodesByIds(ws, ids);
      for (const id of ids) deps.id(ws, id);
      return nodes;
    },
    getSubtree: async (ws, path, depth) => {
      const rows = await session.getSubtree(ws, path, depth);
      deps.node(ws, path);
      deps.subtree(ws, path, depth, rows);
      return rows;
    },
    getSubtrees: async (ws, paths, depth) => {
      const rows = await session.getSubtrees(ws, paths, depth);
      deps.descendants(ws, paths, depth, rows);
      return rows;
    },
    getChildrenPages: async (ws, parents, limit) => {
      const pages = await session.getChildrenPages(ws, parents, limit);
      for (const p of parents) deps.children(ws, p.parentPath);
      for (const page of pages) deps.nodes(ws, page.nodes);
      return pages;
    },
    query: async (spec, extra) => {
      const result = await session.query(spec, extra);
      // Any node of the workspace may enter or leave the results (or change the total).
      deps.workspace(spec.workspace);
      return result;
    },
    readVersion: async (ws, path, name, depth) => {
      const read = await session.readVersion(ws, path, name, depth);
      // Versions are frozen; a publish (a change of the node) adds one, and the node must still exist.
      deps.node(ws, path);
      // In the published state a version shows only subpages published now: any publish or unpublish
      // in the workspace may change it (versions are read rarely; the coarse key is the safe one).
      if (isPublishedWorkspace(ws)) deps.workspace(ws);
      return read;
    },
    listVersions: async (ws, path) => {
      const list = await session.listVersions(ws, path);
      deps.node(ws, path);
      return list;
    },
  };
}
