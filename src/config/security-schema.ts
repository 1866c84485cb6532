// Config layer: the `security:` section of petal.yaml and the files of the security folder: what they may
// hold (schemas) and what they resolve to (SecurityConfig), read by security-config.ts.
import { z } from 'zod';
import { isPasswordHash } from './password-hash-format.js';
import { WORKSPACE_NAME, WORKSPACE_NAME_RULE } from '../model/names.js';

/** Names of users, groups and roles: also what `petal user add` accepts. */
export const NAME_PATTERN = /^[A-Za-z0-9._@-]{1,64}$/;
/** The file of the security folder that holds API tokens (not identities, so not merged). */
export const TOKENS_FILE_NAME = 'tokens.yaml';
/** The file of the security folder that `petal user add` writes. */
export const USERS_FILE_NAME = 'users.yaml';
/** The file of the security folder where `petal user logout` records when each user's sessions end. */
export const LOGOUTS_FILE_NAME = 'logouts.yaml';
export const DEFAULT_SECURITY_FOLDER = './security';
// `__proto__` passes the pattern; as a key refuseProtoKeys stops it, as a value (a role named in a list) this does.
const name = z.string().regex(NAME_PATTERN, 'expected 1-64 letters, digits or . _ @ -').refine((n) => n !== '__proto__', 'reserved name');
const workspaceName = z.string().refine((w) => w === '*' || WORKSPACE_NAME.test(w), `expected * or a workspace name (${WORKSPACE_NAME_RULE})`);
// Rules are matched against canonical paths; a pattern that no canonical path can have is a mistake.
const rulePath = z.string().max(1024)
  .regex(/^\//, 'must start with /')
  .refine((p) => !/[\u0000-\u001f\u007f\\?#%;]/.test(p), 'must not contain control characters, \\, ?, #, % or ;')
  .refine((p) => !/\/\/|\/\.{1,2}(\/|$)/.test(p), 'must not contain //, /./ or /../');

const uriPermission = z.enum(['get', 'getAndPost', 'deny']);
const workspacePermission = z.enum(['deny', 'read', 'readWrite']);

const roleSchema = z.strictObject({
  uriPermissions: z.array(z.strictObject({ path: rulePath, permission: uriPermission })).default([]),
  workspacePermissions: z.record(workspaceName, z.array(z.strictObject({ path: rulePath, permission: workspacePermission }))).default({}),
});

const userSchema = z.strictObject({
  passwordHash: z.string().refine(isPasswordHash, 'expected $scrypt$ln=…,r=…,p=…$<salt>$<hash> (create one with `petal user add`)'),
  roles: z.array(name).default([]),
  groups: z.array(name).default([]),
  enabled: z.boolean().default(true),
});

const groupSchema = z.strictObject({
  roles: z.array(name).default([]),
  groups: z.array(name).default([]),
});

/** What a file of the security folder may hold. */
export const securityFileSchema = z.strictObject({
  users: z.record(name, userSchema).optional(),
  groups: z.record(name, groupSchema).optional(),
  roles: z.record(name, roleSchema).optional(),
});

/** The `security:` key of petal.yaml. */
export const securityConfigSchema = z.strictObject({
  folder: z.string().min(1).optional(),
  anonymousRoles: z.array(name).default(['anonymous', 'rest-anonymous']),
  /** Roles every signed-in caller holds besides their own (never the anonymous ones). */
  authenticatedRoles: z.array(name).default(['rest-anonymous']),
  session: z.strictObject({
    idleMinutes: z.number().positive().max(60 * 24 * 30).default(30),
    absoluteHours: z.number().positive().max(24 * 365).default(8),
  }).default({ idleMinutes: 30, absoluteHours: 8 }),
  login: z.strictObject({
    maxConcurrentHashes: z.number().int().min(1).max(64).default(2),
    maxQueuedHashes: z.number().int().min(0).max(10_000).default(16),
  }).default({ maxConcurrentHashes: 2, maxQueuedHashes: 16 }),
  /** Bytes of memoized workspace-permission decisions (all role sets together). */
  aclCacheMaxBytes: z.number().int().min(0).default(16 * 1024 * 1024),
  users: z.record(name, userSchema).optional(),
  groups: z.record(name, groupSchema).optional(),
  roles: z.record(name, roleSchema).optional(),
});

export type ParsedSecurityFile = z.output<typeof securityFileSchema>;
export type RawSecurityConfig = z.input<typeof securityConfigSchema>;
export type UriPermission = z.infer<typeof uriPermission>;
export type WorkspacePermission = z.infer<typeof workspacePermission>;

export interface UriRule {
  readonly path: string;
  readonly permission: UriPermission;
}

export interface WorkspaceRule {
  readonly path: string;
  readonly permission: WorkspacePermission;
}

export interface RoleConfig {
  readonly uriPermissions: readonly UriRule[];
  /** Workspace name (or `*` for every workspace) → rules. */
  readonly workspacePermissions: ReadonlyMap<string, readonly WorkspaceRule[]>;
}

export interface UserConfig {
  readonly passwordHash: string;
  readonly roles: readonly string[];
  readonly groups: readonly string[];
  readonly enabled: boolean;
}

export interface GroupConfig {
  readonly roles: readonly string[];
  readonly groups: readonly string[];
}

/** The resolved security settings: every default applied, the folder merged, references checked. */
export interface SecurityConfig {
  /** Absolute security folder (it may not exist when it was not configured). */
  readonly folder: string;
  /** `<folder>/tokens.yaml`: API token hashes. */
  readonly tokensFile: string;
  /** `<folder>/users.yaml`: where `petal user add` writes. */
  readonly usersFile: string;
  /** `<folder>/logouts.yaml`: per user, the time before which their sessions are void. */
  readonly logoutsFile: string;
  readonly anonymousRoles: readonly string[];
  /** Roles every signed-in caller holds besides their own (sorted). */
  readonly authenticatedRoles: readonly string[];
  readonly session: { readonly idleMinutes: number; readonly absoluteHours: number };
  readonly login: { readonly maxConcurrentHashes: number; readonly maxQueuedHashes: number };
  readonly aclCacheMaxBytes: number;
  /** User name → epoch ms: sessions created at or before it are void (from logouts.yaml). */
  readonly logouts: ReadonlyMap<string, number>;
  readonly users: ReadonlyMap<string, UserConfig>;
  readonly groups: ReadonlyMap<string, GroupConfig>;
  /** Configured roles plus the built-ins that were not overridden. */
  readonly roles: ReadonlyMap<string, RoleConfig>;
  /** Where each name comes from: a file path, or BUILT_IN for roles shipped with Petal. */
  readonly definedIn: {
    readonly users: ReadonlyMap<string, string>;
    readonly groups: ReadonlyMap<string, string>;
    readonly roles: ReadonlyMap<string, string>;
  };
}

/** The logouts file: per user, the time before which their sessions are void. */
export const logoutsSchema = z.strictObject({
  logouts: z.record(name, z.string().refine((t) => !Number.isNaN(Date.parse(t)), 'expected an ISO-8601 date-time')).default({}),
});
