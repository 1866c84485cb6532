// Export layer: streams a subtree as a JCR system view (the XML `petal import` and the original CMS read).
import type { BlobSource } from '../assets/read-binary.js';
import type { TreeEvent } from './walk-tree.js';
import { exportName, exportProperties, valueText, type ExportProperty } from './export-values.js';
import { base64Blob } from './base64-blob.js';

const NAMESPACES =
  ' xmlns:sv="http://www.jcp.org/jcr/sv/1.0" xmlns:jcr="http://www.jcp.org/jcr/1.0"'
  + ' xmlns:mgnl="http://www.magnolia.info/jcr/mgnl" xmlns:mix="http://www.jcp.org/jcr/mix/1.0"'
  + ' xmlns:nt="http://www.jcp.org/jcr/nt/1.0"';

/**
 * Characters that cannot stand for themselves: markup, `\r` (XML parsers turn it into `\n`), and the
 * control characters XML 1.0 forbids or discourages, written as character references so they round-trip.
 * (U+0000 and unpaired surrogates have no XML form at all; the store holds neither in practice.)
 */
const ESCAPED_TEXT = /[&<>\u0000-\u0008\u000b\u000c\u000d\u000e-\u001f\u007f-\u009f\ufffe\uffff]/g;
const ESCAPED_ATTRIBUTE = /[&<>"\u0000-\u001f\u007f-\u009f\ufffe\uffff]/g;
const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

function escapeChar(c: string): string {
  return ENTITIES[c] ?? `&#${c.charCodeAt(0)};`;
}

export function escapeXmlText(text: string): string {
  return text.replace(ESCAPED_TEXT, escapeChar);
}

export function escapeXmlAttribute(text: string): string {
  return text.replace(ESCAPED_ATTRIBUTE, escapeChar);
}

export interface XmlExportOptions {
  readonly blobs: BlobSource;
  /** Wrap the nodes in the `jcr:root` element of a whole-workspace export. */
  readonly workspaceRoot: boolean;
}

/** The XML text of the tree, piece by piece; binaries arrive in base64 pieces of one stored chunk each. */
export async function* writeJcrXml(events: AsyncIterable<TreeEvent>, o: XmlExportOptions): AsyncGenerator<string> {
  yield '<?xml version="1.0" encoding="UTF-8"?>\n';
  let depth = 0;
  if (o.workspaceRoot) {
    yield `<sv:node sv:name="jcr:root"${NAMESPACES}>\n`;
    yield '  <sv:property sv:name="jcr:primaryType" sv:type="Name"><sv:value>rep:root</sv:value></sv:property>\n';
    depth = 1;
  }
  for await (const event of events) {
    if (event.kind === 'close') {
      depth--;
      yield `${indent(depth)}</sv:node>\n`;
      continue;
    }
    const { node } = event;
    yield `${indent(depth)}<sv:node sv:name="${escapeXmlAttribute(exportName(node.name))}"${depth === 0 ? NAMESPACES : ''}>\n`;
    depth++;
    for (const p of exportProperties(node)) yield* writeProperty(p, depth, o.blobs);
  }
  if (o.workspaceRoot) yield '</sv:node>\n';
}

async function* writeProperty(p: ExportProperty, depth: number, blobs: BlobSource): AsyncGenerator<string> {
  const multiple = Array.isArray(p.value);
  yield `${indent(depth)}<sv:property sv:name="${escapeXmlAttribute(p.name)}" sv:type="${p.type}"${multiple ? ' sv:multiple="true"' : ''}>`;
  const values = multiple ? p.value as readonly (string | number | boolean)[] : [p.value as string | number | boolean];
  for (const v of values) {
    if (p.type === 'Binary') {
      yield '<sv:value>';
      yield* base64Blob(blobs, String(v));
      yield '</sv:value>';
    } else {
      yield `<sv:value>${escapeXmlText(valueText(v))}</sv:value>`;
    }
  }
  yield '</sv:property>\n';
}

function indent(depth: number): string {
  return '  '.repeat(depth);
}
