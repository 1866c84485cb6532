// Ingest layer: the temporary folder an import decodes binaries into, `petal-import-<pid>-XXXXXX`;
// those left by killed imports are swept away by the next import (and at server start).
import { createProcessFolder, sweepAbandonedFolders } from '../store/process-folder.js';

const PREFIX = 'petal-import-';

export function createSpoolFolder(parent?: string): Promise<string> {
  return createProcessFolder(PREFIX, parent);
}

export function sweepAbandonedSpoolFolders(parent?: string): Promise<string[]> {
  return sweepAbandonedFolders(PREFIX, parent);
}
