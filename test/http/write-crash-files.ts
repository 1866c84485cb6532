// Shared by write-crash.test.ts and its child: the security set-up and the two writes of the crash tests
// (an HTTP import of two files; a Nodes API POST that updates /keep and creates children below it).
export const CRASH_SECURITY = {
  roles: {
    anonymous: {
      uriPermissions: [{ path: '/*', permission: 'getAndPost' }],
      workspacePermissions: { website: [{ path: '/', permission: 'readWrite' }, { path: '/*', permission: 'readWrite' }] },
    },
  },
};

/** Before the upload: one page, `/keep`, titled Old. */
export const CRASH_BEFORE = { 'website.keep.yaml': "'keep':\n  'jcr:primaryType': 'mgnl:page'\n  'title': 'Old'\n" };

export const CRASH_CHILDREN = 200;

/** Two files, one transaction: a new page `/fresh` with CRASH_CHILDREN children, then `/keep` again, titled New. */
export function crashUpload(): { payload: Buffer; headers: Record<string, string> } {
  let fresh = "'fresh':\n  'jcr:primaryType': 'mgnl:page'\n  'title': 'Fresh'\n";
  for (let i = 0; i < CRASH_CHILDREN; i++) fresh += `  'c${i}':\n    'jcr:primaryType': 'mgnl:page'\n    'title': 'Child ${i}'\n`;
  const keep = "'keep':\n  'jcr:primaryType': 'mgnl:page'\n  'title': 'New'\n";
  const boundary = '----petalcrash';
  const part = (name: string, yaml: string) =>
    `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${name}"\r\ncontent-type: application/octet-stream\r\n\r\n${yaml}\r\n`;
  const text = `${part('website.fresh.yaml', fresh)}${part('website.keep.yaml', keep)}--${boundary}--\r\n`;
  return { payload: Buffer.from(text, 'utf8'), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** A Nodes API POST to /keep: title New, and CRASH_CHILDREN new child pages (created one by one in the write). */
export function crashNodesBody(): unknown {
  const title = (value: string) => ({ name: 'title', type: 'String', multiple: false, values: [value] });
  const nodes = Array.from({ length: CRASH_CHILDREN }, (_, i) => ({ name: `n${i}`, type: 'mgnl:page', properties: [title(`Child ${i}`)] }));
  return { properties: [title('New')], nodes };
}
