// HTTP layer: `POST {contextPath}/.rest/import/v1`, export files as multipart/form-data (one part per file,
// named as `petal import` names them) imported in ONE transaction with the CLI's rules. Parts stream to
// the import spool folder (never whole in memory), bounded by `limits.importMaxBytes` and a number of
// files. The security hook has already applied the URI rules (getAndPost) and the CSRF rule; here every
// node written or replaced needs readWrite in the workspace, decided by the rules alone so that a refusal
// tells nothing about nodes the caller cannot read.
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { IMPORT_PATH } from '../../config/api-prefixes.js';
import { PetalError } from '../../errors.js';
import { exportFileSegments } from '../../ingest/parse-file-name.js';
import { importUploads, type Upload } from '../../ingest/run-import.js';
import { createSpoolFolder } from '../../ingest/spool-folder.js';
import { ancestorsOf, joinPath } from '../../model/paths.js';
import type { Repository } from '../../repository/session.js';
import type { SecurityService, WriteAccess } from '../../security/security-service.js';
import type { ImportDocument, ImportGuard, UuidCollisionPolicy } from '../../repository/import-document.js';
import { sendError } from '../error-handler.js';

/** Default body limit of an import (1 GiB). */
export const DEFAULT_IMPORT_MAX_BYTES = 1024 * 1024 * 1024;
/** Files one import may carry. */
export const MAX_IMPORT_FILES = 1000;
const POLICIES: readonly UuidCollisionPolicy[] = ['new', 'replace', 'fail'];
const FILE_NAME = /^[^/\\\0]{1,255}\.(yaml|xml)$/i;

export interface ImportRouteOptions {
  readonly repository: Repository;
  readonly security: SecurityService;
  readonly contextPath: string;
  readonly maxBytes?: number;
  readonly onUuidCollision?: UuidCollisionPolicy;
  /** Parent of the spool folder (default: the OS temporary folder, swept at start). */
  readonly spoolParent?: string;
  /** Publishing is on: imported nodes get their activation status from the published state. */
  readonly publishing?: boolean;
}

function parsePolicy(raw: unknown, fallback: UuidCollisionPolicy): UuidCollisionPolicy {
  if (raw === undefined) return fallback;
  if (typeof raw === 'string' && (POLICIES as readonly string[]).includes(raw)) return raw as UuidCollisionPolicy;
  throw new PetalError('invalidParameter', `Parameter "onUuidCollision" must be new, replace or fail, not ${JSON.stringify(raw)}`);
}

function refuse(workspace: string, path: string): PetalError {
  return new PetalError('accessDenied', `You may not write ${workspace}:${path}`);
}

/** readWrite where each file's roots go; missing parents the caller cannot read need readWrite too. */
function authorizer(access: WriteAccess): (doc: { readonly workspace: string; readonly parentPath: string }) => void {
  return (doc) => {
    const ws = doc.workspace;
    for (const ancestor of ancestorsOf(doc.parentPath)) {
      // A readable ancestor's existence is no secret (the guard checks it if it must be created); an
      // unreadable one is decided as if missing, so the answer never depends on it.
      if (ancestor !== '/' && !access.canRead(ws, ancestor) && !access.mayWrite(ws, ancestor)) throw refuse(ws, ancestor);
    }
    if (!access.mayWrite(ws, doc.parentPath)) throw refuse(ws, doc.parentPath);
  };
}

/** readWrite on each root's whole subtree, as the roots come. */
function rootAuthorizer(access: WriteAccess): (workspace: string, path: string) => void {
  return (ws, path) => {
    if (!access.mayReplaceSubtree(ws, path)) throw refuse(ws, `${path} (or a node below it)`);
  };
}

function guardOf(access: WriteAccess): ImportGuard {
  return {
    create: (ws, path) => { if (!access.mayWrite(ws, path)) throw refuse(ws, path); },
    remove: (ws, path, uuid) => {
      if (access.mayReplaceSubtree(ws, path)) return;
      if (uuid === undefined) throw refuse(ws, `${path} (or a node below it)`);
      // A UUID's holder is never named, and one the caller may read is answered as a hidden one.
      throw new PetalError('accessDenied', `uuid ${uuid} of this import cannot be used in ${ws}: it belongs to a node you may not replace`);
    },
  };
}

/** Counts the bytes of every part of one request against the import's limit. */
function byteLimit(state: { bytes: number }, max: number): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      state.bytes += chunk.length;
      if (state.bytes > max) done(new PetalError('payloadTooLarge', `The import is larger than limits.importMaxBytes (${max} bytes)`));
      else done(null, chunk);
    },
  });
}

async function receive(request: FastifyRequest, spoolDir: string, maxBytes: number, fields: Record<string, string>): Promise<Upload[]> {
  const uploads: Upload[] = [];
  const names = new Set<string>();
  const state = { bytes: 0 };
  for await (const part of request.parts()) {
    if (part.type === 'field') {
      if (typeof part.value === 'string') fields[part.fieldname] = part.value;
      continue;
    }
    const name = part.filename;
    if (!FILE_NAME.test(name) || name.startsWith('.')) {
      part.file.resume();
      throw new PetalError('invalidImport', `${JSON.stringify(name)}: a file part must be named <workspace>.<path>.yaml|xml`);
    }
    try {
      exportFileSegments(name);
    } catch (err) {
      part.file.resume();
      throw err;
    }
    if (names.has(name)) {
      part.file.resume();
      throw new PetalError('invalidImport', `${name}: sent twice in one import`);
    }
    names.add(name);
    const dir = join(spoolDir, `upload-${uploads.length}`);
    await mkdir(dir);
    const file = join(dir, name);
    await pipeline(part.file, byteLimit(state, maxBytes), createWriteStream(file, { flags: 'wx' }));
    if (part.file.truncated) throw new PetalError('payloadTooLarge', `${name}: larger than limits.importMaxBytes (${maxBytes} bytes)`);
    uploads.push({ file, name });
  }
  return uploads;
}

/** The multipart plugin's limits, in the words of this route's limits (import errors: error-handler.ts). */
function asPetalError(err: unknown, maxBytes: number): unknown {
  const code = (err as { code?: unknown }).code;
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT') {
    return new PetalError('payloadTooLarge', `An import carries at most ${MAX_IMPORT_FILES} files`, { cause: err });
  }
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return new PetalError('payloadTooLarge', `The import is larger than limits.importMaxBytes (${maxBytes} bytes)`, { cause: err });
  }
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') {
    return new PetalError('unsupportedMediaType', 'An import is sent as multipart/form-data, one part per export file', { cause: err });
  }
  return err;
}

export async function registerImportRoutes(app: FastifyInstance, o: ImportRouteOptions): Promise<void> {
  const maxBytes = o.maxBytes ?? DEFAULT_IMPORT_MAX_BYTES;
  const url = `${o.contextPath}${IMPORT_PATH}`;
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const length = Number(request.headers['content-length']);
    if (Number.isFinite(length) && length > maxBytes) {
      reply.header('connection', 'close'); // the body is not read
      return sendError(reply, 'payloadTooLarge', `The import is larger than limits.importMaxBytes (${maxBytes} bytes)`);
    }
    if (!request.isMultipart()) {
      return sendError(reply, 'unsupportedMediaType', 'An import is sent as multipart/form-data, one part per export file');
    }
    const query = request.query as Record<string, unknown>;
    const spoolDir = await createSpoolFolder(o.spoolParent);
    try {
      const fields: Record<string, string> = {};
      const uploads = await receive(request, spoolDir, maxBytes, fields);
      const policy = parsePolicy(query.onUuidCollision ?? fields.onUuidCollision, o.onUuidCollision ?? 'new');
      if (uploads.length === 0) return sendError(reply, 'invalidImport', 'No export file in the request (one part per file)');
      const access = o.security.writeAccess(request.caller);
      const result = await importUploads(o.repository.store, uploads, join(spoolDir, 'blobs'), {
        ...(o.publishing === true ? { publishing: true } : {}),
        onUuidCollision: policy,
        by: request.caller.user ?? 'anonymous', // as the Nodes API writes
        guard: guardOf(access),
        authorize: authorizer(access),
        authorizeRoot: rootAuthorizer(access),
      });
      return reply.header('cache-control', 'no-store').send({
        files: result.files, nodes: result.nodes, bytes: result.bytes,
        // Warnings may name nodes elsewhere in the workspace (UUID holders): counted, not listed.
        warnings: result.warnings.length,
        roots: result.roots,
      });
    } catch (err) {
      throw asPetalError(err, maxBytes);
    } finally {
      await rm(spoolDir, { recursive: true, force: true });
    }
  };
  await app.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: maxBytes, files: MAX_IMPORT_FILES, fields: 20, fieldSize: 1024, parts: MAX_IMPORT_FILES + 20, headerPairs: 100 },
    });
    scope.route({ method: 'POST', url, handler });
    scope.route({
      method: ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH'],
      url,
      handler: async (_request, reply) => sendError(reply.header('allow', 'POST'), 'methodNotAllowed', 'Imports are sent with POST'),
    });
  });
}
