// The `petal` command: serve | import | export | publish | unpublish | schedules | versions | changes | webhooks | user | token | init | help. Parses flags, loads the config, and calls main.ts or ingest/.
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from './config/config-error.js';
import { DEFAULT_STORE_FILE, loadConfig, packageRoot, type CliOverrides } from './config/load-config.js';
import { ImportError } from './ingest/import-error.js';
import { importPaths, type ImportProgress } from './ingest/run-import.js';
import { loadStore } from './store/load-store.js';
import { defaultPublisher, publishNodes, type StoreOpener } from './ingest/version-commands.js';
import { ImportConflictError, InvalidDocumentError } from './repository/write-import.js';
import { NodeWriteError } from './repository/node-write.js';
import type { ContentStore } from './store/content-store.js';
import { NodeTypeRegistry } from './repository/node-types.js';
import { takenAlongBy } from './repository/publish-rules.js';
import { ExportError } from './export/export-error.js';
import { checkMovedDefaultStore } from './config/moved-default-store.js';
import { publishState } from './repository/writes.js';

const HELP = `Petal: a fast, self-hostable content delivery server (the delivery API of Magnolia CMS).

Usage:
  petal serve [options]                 serve the delivery API
  petal import [options] [--force] FILE_OR_DIR...
                                        import content exports (YAML bootstrap, JCR XML system view)
                                        whole, and record them as imported (a start skips them unchanged)
  petal export WORKSPACE PATH [--format yaml|xml] [--out FILE]
                                        write a node's subtree (PATH / = the workspace) as a file petal
                                        import takes back; to standard output, or FILE (a folder gets the
                                        file name import expects)
  petal publish WORKSPACE PATH [--recursive] [--comment C] [--by NAME] [--at ISO]
                                        publishing enabled: copy the node (and its content; the whole
                                        subtree with --recursive) into the published state as its next
                                        version; --at a future instant schedules it. Publishing off: store
                                        the node's subtree as its next version (1.0, 1.1, …)
  petal unpublish WORKSPACE PATH [--by NAME] [--at ISO]
                                        remove the node and its subtree from the published state
  petal schedules [--json] [--cancel ID]
                                        list the scheduled publications (and why a failed one was
                                        refused), or cancel one
  petal versions WORKSPACE PATH [--json]
                                        list the node's versions: name, date, who
  petal changes --since N [--limit M] [--json]
                                        list the change events after sequence number N (imports,
                                        publishes: the nodes created, changed, moved, removed)
  petal webhooks list | log [--failed] [--limit N] [--json] | retry ID
                                        the webhooks and where each is; their deliveries (newest first;
                                        those given up); send one again now
  petal user add NAME --role R [--role R2] [--group G] [--password-stdin]
                                        add a user (or set their roles and password) in
                                        <security folder>/users.yaml
  petal user passwd NAME [--password-stdin]
                                        a new password for NAME: ends their sessions and API tokens
  petal user logout|disable|enable|remove NAME
                                        end NAME's sessions; block, unblock or delete NAME
  petal types [--out FILE] [--config petal.yaml]
                                        write TypeScript types of the public endpoints (from the OpenAPI
                                        document /.rest/openapi.json serves)
  petal token create NAME --user U [--expires-days N]
                                        create an API token acting as U; printed once, stored hashed
  petal token list [--user U] | revoke NAME | revoke --user U
                                        list the tokens and whether each works; revoke one, or all of U's
  petal init --magnolia [--modules DIR] [--content DIR]... [--context-path PATH] [--front-end ORIGIN]
                                        write a petal.yaml serving light modules written for the original
                                        CMS to its front ends (mgnl: names, /magnoliaAuthor, CORS, anonymous
                                        read on dam); --out FILE (default ./petal.yaml), --force
  petal help                            show this text

Options (serve, import, export, publish, unpublish, schedules, versions, changes, webhooks; --config also for user and token):
  --config FILE       petal.yaml to use (default: ./petal.yaml, else the bundled demo for serve)
  --store URL         sqlite:FILE or postgres://user@host:5432/db; a relative FILE is taken from the
                      current folder. Default: store: of petal.yaml, else data/petal.db beside
                      petal.yaml (./data/petal.db without one)
  versions, changes, schedules, webhooks list|log and export only read: they refuse a store that
  does not exist yet (exit 1) rather than create an empty one
Options of serve:
  --modules DIR       a light-modules folder; repeat for several
  --port N            port to listen on (default 8080)
  --host H            address to bind (default 0.0.0.0)
  --log-level L       fatal|error|warn|info|debug|trace|silent
  --replica URL       a read replica (postgres://…) of a PostgreSQL store; repeat for several
Options of import:
  --on-uuid-collision new|replace|fail
                      a UUID already used at another path: give the node a new UUID (default),
                      move it here (replace), or abort the import (fail)
  --verbose           list every warning (default: the first 10)
  --force             say that the files overwrite their nodes, editors' changes included (what petal
                      import always does; a start imports a changed content: file only where no write
                      changed its nodes, unless contentPolicy: overwrite)
  --publish           then publish each imported top-level node as its next version (publishing on:
                      into the published state with its subtree, parents first)
  --by NAME           who publishes (publish, unpublish and import --publish; default: the
                      operating-system user)
Options of publish and unpublish:
  --at ISO            an ISO 8601 instant with an offset or Z (2026-05-01T08:00:00+02:00); a future one
                      stores a schedule that petal serve runs when due (publishing.enabled)
Options of user and token:
  The security folder is security.folder of petal.yaml (default ./security beside it, or in the
  current folder without a petal.yaml); it is created with mode 0700, its files with mode 0600.
  --password-stdin    read the password from standard input (default: a prompt, asked twice)

Environment: PETAL_CONFIG, PETAL_STORE, PETAL_MODULES (comma-separated), PETAL_PORT, PETAL_HOST,
PETAL_LOG_LEVEL, PETAL_REPLICAS (comma-separated). Flags override the environment, which overrides
petal.yaml.

Examples:
  petal import ./content
  petal export website /travel --out ./exports
  petal publish website /travel --by alice
  petal publish website /travel --recursive --at 2026-05-01T08:00:00+02:00
  petal schedules --cancel 3f1c…
  petal versions website /travel --json
  petal changes --since 0 --limit 20
  petal serve --modules ./light-modules --port 8080
  petal user add alice --role editor
  petal token create ci --user alice --expires-days 90
`;

const MAX_WARNINGS_SHOWN = 10;

function version(): string {
  try {
    return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function overridesFrom(values: Record<string, string | boolean | string[] | undefined>): CliOverrides {
  const o: CliOverrides = {};
  if (typeof values.config === 'string') o.config = values.config;
  if (typeof values.store === 'string') o.store = values.store;
  if (Array.isArray(values.modules)) o.modules = values.modules;
  if (typeof values.host === 'string') o.host = values.host;
  if (typeof values['log-level'] === 'string') o.logLevel = values['log-level'];
  if (Array.isArray(values.replica)) o.replicas = values.replica;
  if (typeof values.port === 'string') {
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError('--port', `expected a port number, got ${JSON.stringify(values.port)}`);
    o.port = port;
  }
  return o;
}

/**
 * The commands besides help and version, by name (those on a store open it through `openStore`). Each
 * loads its modules when it runs: a command starts without loading the server (some 0.6 s).
 */
const COMMANDS: Readonly<Record<string, (args: string[]) => Promise<number>>> = {
  serve: (args) => serve(args),
  import: (args) => runImport(args),
  export: async (args) => (await import('./export/export-command.js')).exportCommand(args, openStore),
  publish: async (args) => (await import('./ingest/publish-commands.js')).publishCommand(args, openStore),
  unpublish: async (args) => (await import('./ingest/publish-commands.js')).unpublishCommand(args, openStore),
  schedules: async (args) => (await import('./ingest/publish-commands.js')).schedulesCommand(args, openStore),
  versions: async (args) => (await import('./ingest/version-commands.js')).versionsCommand(args, openStore),
  webhooks: async (args) => (await import('./notify/webhook-commands.js')).webhooksCommand(args, openStore),
  changes: async (args) => (await import('./ingest/change-commands.js')).changesCommand(args, openStore),
  user: async (args) => (await import('./security/cli-commands.js')).userCommand(args),
  token: async (args) => (await import('./security/token-commands.js')).tokenCommand(args),
  init: async (args) => (await import('./init-magnolia.js')).initCommand(args),
  types: async (args) => (await import('./openapi/types-command.js')).typesCommand(args, version()),
};

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(HELP);
        return 0;
      case '--version':
      case '-v':
        process.stdout.write(`${version()}\n`);
        return 0;
      default: {
        const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
        if (run !== undefined) return await run(rest);
        process.stderr.write(`petal: unknown command ${JSON.stringify(command)}\n\n${HELP}`);
        return 2;
      }
    }
  } catch (err) {
    if (err instanceof ConfigError || err instanceof MissingStoreError || err instanceof ImportError || err instanceof ImportConflictError || err instanceof InvalidDocumentError || err instanceof ExportError) {
      process.stderr.write(`petal: ${err.message}\n`);
      return 1;
    }
    if (err instanceof TypeError && 'code' in err && String((err as { code: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`petal: ${err.message}\n\n${HELP}`);
      return 2;
    }
    throw err;
  }
}

async function serve(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string' }, store: { type: 'string' }, modules: { type: 'string', multiple: true },
      port: { type: 'string' }, host: { type: 'string' }, 'log-level': { type: 'string' }, help: { type: 'boolean' },
      replica: { type: 'string', multiple: true },
    },
    allowPositionals: false,
  });
  if (values.help) { process.stdout.write(HELP); return 0; }
  const config = loadConfig(overridesFrom(values));
  checkMovedDefaultStore(config, process.cwd());
  const { createLogger, startServer } = await import('./main.js');
  const log = createLogger(config.logLevel);
  if (config.isDemo) log.info(`no petal.yaml here: serving the bundled demo (${config.configFile})`);
  if (config.security.users.size === 0) {
    // No user ships with Petal: say how to make one, for endpoints outside /.rest/delivery/.
    log.info('no users are configured; create one with: npx petal user add NAME --role ROLE (then sign in with HTTP Basic or POST /.auth/login)');
  }
  const server = await startServer(config, log);
  const stop = (signal: string) => {
    log.info(`${signal}: draining requests and stopping`);
    server.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  return await new Promise<number>(() => { /* runs until a signal stops it */ });
}

function notice(message: string): void {
  process.stderr.write(`petal: ${message}\n`);
}

/** A read-only command named a store that is not there: it is not created. */
class MissingStoreError extends Error {}

/** The store of --store / --config, as `petal import` picks it (the default store without either). */
const openStore: StoreOpener = async (flags, options = {}) => {
  const config = loadConfig(overridesFrom(flags));
  checkMovedDefaultStore(config, process.cwd());
  const url = config.isDemo ? `sqlite:${resolve(DEFAULT_STORE_FILE)}` : config.store;
  if (options.readOnly === true) {
    // Loaded here: it brings pg, which a command on a SQLite store does not need.
    const missing = await (await import('./store/store-exists.js')).missingStore(url);
    if (missing !== undefined) throw new MissingStoreError(`no store at ${missing} (run \`petal serve\` or \`petal import\` first, or pass --store)`);
  }
  const store = await loadStore(url, { onNotice: notice });
  await store.open();
  return { store, url, config };
};

async function runImport(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: 'string' }, store: { type: 'string' }, 'on-uuid-collision': { type: 'string' }, help: { type: 'boolean' },
      verbose: { type: 'boolean' }, publish: { type: 'boolean' }, by: { type: 'string' }, force: { type: 'boolean' },
    },
    allowPositionals: true,
  });
  if (values.help) { process.stdout.write(HELP); return 0; }
  if (positionals.length === 0) {
    process.stderr.write('petal import: name at least one file or folder to import\n');
    return 2;
  }
  if (values.by !== undefined && !values.publish) {
    process.stderr.write('petal import: --by names who publishes: use it with --publish\n');
    return 2;
  }
  const policy = values['on-uuid-collision'];
  if (policy !== undefined && policy !== 'new' && policy !== 'replace' && policy !== 'fail') {
    process.stderr.write(`petal import: --on-uuid-collision must be new, replace or fail, not ${JSON.stringify(policy)}\n`);
    return 2;
  }
  // Without --store or a petal.yaml, import into the default store that `petal serve` also uses.
  const config = loadConfig(overridesFrom(values));
  checkMovedDefaultStore(config, process.cwd());
  // Without --store or a petal.yaml, import into the default store that `petal serve --modules` reads.
  const storeUrl = config.isDemo ? `sqlite:${resolve(DEFAULT_STORE_FILE)}` : config.store;
  const store = await loadStore(storeUrl, { onNotice: notice, ...(config.persistQueryIndex !== undefined ? { persistQueryIndex: config.persistQueryIndex } : {}) });
  await store.open();
  // Loaded for a terminal only: `petal serve` and scripted imports do not carry it.
  const cliProgress = process.stderr.isTTY ? (await import('cli-progress')).default : undefined;
  const bar = cliProgress !== undefined ? new cliProgress.SingleBar({
    format: '{phase} [{bar}] {percentage}% | {value}/{total} KB | {file}', hideCursor: true, clearOnComplete: true,
  }, cliProgress.Presets.shades_classic) : undefined;
  let started = false;
  const onProgress = (p: ImportProgress) => {
    if (!bar) return;
    const total = Math.max(1, Math.round(p.bytesTotal / 1024));
    if (!started) { bar.start(total, 0, { phase: 'parsing', file: '' }); started = true; }
    bar.update(Math.round(p.bytesDone / 1024), { phase: p.phase === 'parse' ? 'parsing' : 'writing', file: p.file ? p.file.split('/').pop() : '' });
  };
  try {
    const r = await importPaths(store, positionals, {
      onUuidCollision: (policy ?? config.onUuidCollision) as 'new' | 'replace' | 'fail', onProgress,
      // Whole, as always (--force or not), and recorded: a start then skips these files while unchanged.
      record: config.baseDir ?? process.cwd(),
      ...(config.publishing !== undefined ? { publishing: true } : {}),
    });
    bar?.stop();
    const shown = values.verbose ? r.warnings : r.warnings.slice(0, MAX_WARNINGS_SHOWN);
    for (const w of shown) process.stderr.write(`warning: ${w}\n`);
    if (shown.length < r.warnings.length) {
      process.stderr.write(`… and ${r.warnings.length - shown.length} more warnings (--verbose lists them all)\n`);
    }
    const secs = r.ms / 1000;
    process.stdout.write(
      `imported ${r.nodes} nodes from ${r.files} files (${(r.bytes / 1048576).toFixed(1)} MB) in ${secs.toFixed(2)} s ` +
      `(${Math.round(r.nodes / Math.max(secs, 0.001))} nodes/s) into ${storeUrl}` +
      `${r.warnings.length > 0 ? `, ${r.warnings.length} warnings` : ''}\n`,
    );
    if (r.indexSegments.written > 0) {
      process.stdout.write(`refreshed ${r.indexSegments.written} persisted query index segments in ${(r.indexSegments.ms / 1000).toFixed(2)} s\n`);
    }
    if (values.publish && config.publishing !== undefined) {
      // Publishing on: each imported top-level node with its subtree into the published state, parents first.
      await publishImported(store, r.roots, values.by ?? defaultPublisher(), takenAlongBy(new NodeTypeRegistry(config.nodeTypes)));
    } else if (values.publish) {
      // After the import's commit, one transaction per node: a failure here leaves the import in place.
      const { published, missing } = await publishNodes(store, r.roots, values.by ?? defaultPublisher());
      for (const v of published) process.stdout.write(`published ${v.workspace}:${v.path} as version ${v.name} (${v.nodes} nodes)\n`);
      for (const m of missing) process.stderr.write(`warning: ${m} was not published: it is gone\n`);
    }
    return 0;
  } catch (err) {
    bar?.stop();
    throw err;
  } finally {
    await store.close();
  }
}

/** `import --publish` with publishing on: one publish per root; a refused one is a warning (the import stands). */
async function publishImported(
  store: ContentStore, roots: readonly { workspace: string; path: string }[], by: string, takenAlong: (type: string) => boolean,
): Promise<void> {
  for (const { workspace, path } of roots) {
    try {
      const r = await publishState(store, { workspace, path, recursive: true, takenAlong, by });
      process.stdout.write(`published ${workspace}:${path} (${r.nodes} nodes) as version ${r.version?.name ?? '?'} by ${by}\n`);
    } catch (err) {
      if (!(err instanceof NodeWriteError)) throw err;
      process.stderr.write(`warning: ${workspace}:${path} was not published: ${err.message}\n`);
    }
  }
}
