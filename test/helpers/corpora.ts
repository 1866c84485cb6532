// Test helper: where the shared corpora are (`../shared/corpora` beside the checkout, or PETAL_CORPORA).
// Tests that read them directly are skipped, with this reason, on a machine without them.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

export const CORPORA = process.env.PETAL_CORPORA ?? resolve(REPO_ROOT, '..', 'shared', 'corpora');
export const CORPORA_AVAILABLE = existsSync(CORPORA);

if (!CORPORA_AVAILABLE) {
  console.warn(`corpora not found at ${CORPORA}: tests reading them are skipped (set PETAL_CORPORA to run them)`);
}

/** Extracts of the original CMS's documentation (`../shared/research/original-docs`). */
export const ORIGINAL_DOCS = process.env.PETAL_ORIGINAL_DOCS ?? resolve(REPO_ROOT, '..', 'shared', 'research', 'original-docs');
export const ORIGINAL_DOCS_AVAILABLE = existsSync(ORIGINAL_DOCS);
