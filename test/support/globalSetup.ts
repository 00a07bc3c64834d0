/**
 * globalSetup of the "integration" vitest project: one throwaway MariaDB and one throwaway PostgreSQL for the whole
 * run, started side by side.
 *
 * - Default: installs mariadb-server from Debian if `mariadbd` is missing, starts a private server (temp datadir,
 *   free port, never 3306, never the system service), creates database `leaf_test` and a password user on
 *   127.0.0.1, and provides `mysqlUrl` = mysql://leaf:<pass>@127.0.0.1:<port>/leaf_test. Teardown stops exactly
 *   that PID and removes the temp dir.
 * - LEAF_TEST_MYSQL_URL=mysql://user:pass@host:port/db: use that server instead, start nothing. Its user must be
 *   allowed to CREATE / DROP databases (each test file works in its own `leaf_it_<random>` database).
 *   The outage test still starts its own dedicated mariadbd when the binaries are installed, and is skipped if not.
 *
 * - PostgreSQL the same way (tools/harness/postgres.ts: Debian's postgresql-15, installed when missing; initdb as the
 *   postgres user; own data dir, socket dir and free port, never 5432): database `leaf_test` owned by a password user
 *   allowed to CREATE DATABASE, provided as `pgUrl` = postgres://leaf:<pass>@127.0.0.1:<port>/leaf_test. Or
 *   LEAF_TEST_PG_URL=postgres://user:pass@host:port/db: that server instead (its user needs CREATEDB).
 *
 * Both integration projects (the files that run side by side and the serial ones) share the one pair of servers: the
 * first setup starts them, the last teardown stops them.
 *
 * Tests read the values with `inject('mysqlUrl')` / `inject('pgUrl')` / `inject('mariadbAvailable')` (see
 * test/support/context.ts).
 */
import type { TestProject } from 'vitest/node';
import { MariadbServer, PostgresServer, findMariadb } from '../../tools/harness';

declare module 'vitest' {
  export interface ProvidedContext {
    mysqlUrl: string;
    pgUrl: string;
    /** Whether mariadbd binaries exist, so a test may start a dedicated server of its own. */
    mariadbAvailable: boolean;
  }
}

const log = (line: string) => process.stderr.write(`[globalSetup] ${line}\n`);

interface Started {
  url: string;
  stop(): Promise<void>;
}

interface Servers {
  mysql: Started;
  postgres: Started;
}

/** On globalThis: vitest may load this module once per project, and the projects share one process. */
const SHARED = Symbol.for('leaf-ts.test.integrationServers');
type Shared = { servers: Promise<Servers>; users: number };

async function startServers(): Promise<Servers> {
  const [mysql, postgres] = await Promise.all([
    startShared('MariaDB', 'LEAF_TEST_MYSQL_URL', () => MariadbServer.create({ log })),
    startShared('PostgreSQL', 'LEAF_TEST_PG_URL', () => PostgresServer.create({ log })),
  ]);
  return { mysql, postgres };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const global = globalThis as { [SHARED]?: Shared };
  const shared = (global[SHARED] ??= { servers: startServers(), users: 0 });
  shared.users++;
  const { mysql, postgres } = await shared.servers;
  project.provide('mysqlUrl', mysql.url);
  // Started here, the binaries exist; with an external server, a test may still start its own where installed.
  project.provide('mariadbAvailable', process.env.LEAF_TEST_MYSQL_URL ? findMariadb() !== undefined : true);
  project.provide('pgUrl', postgres.url);
  return async () => {
    if (--shared.users > 0) return;
    delete global[SHARED];
    await Promise.all([mysql.stop(), postgres.stop()]);
  };
}

/** What MariadbServer and PostgresServer share: a throwaway server with an app user. */
interface ThrowawayServer {
  readonly pid: number | undefined;
  readonly port: number;
  readonly dir: string;
  createAppUser(database: string, user: string): Promise<string>;
  destroy(): Promise<void>;
}

/** The server that `externalVar` names, else a throwaway one with database `leaf_test` and user `leaf`. */
async function startShared(
  name: string,
  externalVar: string,
  create: () => Promise<ThrowawayServer>,
): Promise<Started> {
  const external = process.env[externalVar];
  if (external) {
    log(`${externalVar} is set: using that server, not starting one`);
    return { url: external, stop: async () => {} };
  }
  const started = Date.now();
  const server = await create();
  let url: string;
  try {
    url = await server.createAppUser('leaf_test', 'leaf');
    log(
      `${name} pid ${server.pid} on 127.0.0.1:${server.port} ready after ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  } catch (error) {
    await server.destroy();
    throw error;
  }
  return {
    url,
    stop: async () => {
      const pid = server.pid;
      await server.destroy();
      log(`${name} pid ${pid} stopped, ${server.dir} removed`);
    },
  };
}
