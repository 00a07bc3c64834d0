/**
 * The deployment recipes, each checked by its own tool: ops/systemd/leaf-ts.service by `systemd-analyze verify`
 * (Debian's systemd), ops/haproxy/haproxy.cfg by `haproxy -c` — no warning either — and then run as written (its
 * addresses on loopback) in front of three nodes: the one whose store cannot open is kept out of rotation while the
 * two others serve; the audit trail names the client behind the proxy (LEAF_TRUSTED_PROXIES), not the proxy; a
 * session made through the proxy works on every node. The recipe under node faults and load: chaos --lb haproxy.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../lib/store/sqlite';
import {
  HAPROXY_RECIPE,
  type HaproxyServer,
  type NodeServer,
  REPO_ROOT,
  checkHaproxyConfig,
  ensurePackage,
  findExecutable,
  freePort,
  httpGetStatus,
  pollFor,
  spawnServer,
  startHaproxyRecipe,
  startNodeServer,
  stopChild,
  waitForServers,
} from '../../tools/harness';
import { type TempDir, tempDir } from '../support/context';
import { defined } from '../support/defined';

const UNIT = path.join(REPO_ROOT, 'ops', 'systemd', 'leaf-ts.service');
const ADMIN = 'deploy-recipes-admin-token';
const log = (line: string) => process.stderr.write(`[deploy] ${line}\n`);

describe('the recipes pass their own tools', () => {
  it('systemd-analyze verify: the unit is valid and says nothing', () => {
    const analyze = ensurePackage('systemd', () => findExecutable(['systemd-analyze']), log);
    // verify exits 0 on unknown keys and bad values too, printing them: any output is a failure.
    const out = execFileSync(analyze, ['verify', UNIT], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(out).toBe('');
  });

  it('haproxy -c: the configuration is valid, without a warning', () => {
    const { valid, output } = checkHaproxyConfig(HAPROXY_RECIPE, log);
    expect(valid, output).toBe(true);
    expect(output.trim(), output).toBe('Configuration file is valid');
  });
});

/** GET or POST through `port` from the local address `from` (a loopback address of its own). */
function request(
  port: number,
  from: string,
  p: string,
  init: { method?: string; body?: string; headers?: Record<string, string> } = {},
) {
  return new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: p,
        method: init.method ?? 'GET',
        localAddress: from,
        agent: false,
        headers: { 'content-type': 'application/json', ...init.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('haproxy.cfg in front of three nodes', () => {
  let tmp: TempDir;
  let nodes: NodeServer[] = [];
  let notReady: ChildProcess | undefined;
  let haproxy: HaproxyServer;

  beforeAll(async () => {
    tmp = tempDir('leaf-it-deploy-');
    const file = tmp.file('leaf.db');
    const store = new SqliteStore({ file });
    await store.tags.createTag({ bizTag: 'lb', step: 100 });
    await store.close();
    const env = (id: string, db: Record<string, string>) =>
      ({
        ...process.env,
        NODE_ENV: 'production',
        LEAF_LOG_LEVEL: 'warn',
        LEAF_ADMIN_TOKEN: ADMIN,
        LEAF_NODE_ID: id,
        LEAF_TRUSTED_PROXIES: '127.0.0.1',
        LEAF_SNOWFLAKE: 'off',
        ...db,
      }) as NodeJS.ProcessEnv;
    // A MySQL URL on a port nobody listens on: the node listens, but its store never opens (health 503 not_ready).
    const nowhere = `mysql://leaf:leaf@127.0.0.1:${await freePort()}/leaf`;
    const [a, b] = await Promise.all([
      startNodeServer({ env: env('lb-a', { DATABASE_URL: `file:${file}` }), timeoutMs: 60_000 }),
      startNodeServer({ env: env('lb-b', { DATABASE_URL: `file:${file}` }), timeoutMs: 60_000 }),
    ]);
    // Never 200 (startNodeServer's readiness): started here and waited on until its health answers at all.
    const cPort = await freePort();
    notReady = spawnServer({ port: cPort, env: env('lb-c', { DATABASE_URL: nowhere }) });
    expect(
      await pollFor(
        60_000,
        async () => ((await httpGetStatus(cPort, '/api/health', 1_000)) === 503 ? true : undefined),
        200,
      ),
    ).toBe(true);
    nodes = [a, b];
    haproxy = await startHaproxyRecipe({
      servers: [a.port, b.port, cPort],
      dir: tmp.file('haproxy'),
      log,
      backendLines: ['http-response set-header x-served-by %[srv_name]'],
    });
  }, 120_000);

  afterAll(async () => {
    await haproxy?.stop();
    await Promise.all([...nodes.map((n) => n.stop()), notReady === undefined ? undefined : stopChild(notReady)]);
    tmp?.remove();
  });

  it('keeps the node that cannot open its store out of rotation; the others serve every request', async () => {
    expect(await waitForServers(haproxy, ['leaf1', 'leaf2'], 'UP', 30_000), JSON.stringify(await haproxy.stats())).toBe(
      true,
    );
    expect(await waitForServers(haproxy, ['leaf3'], 'DOWN', 30_000), JSON.stringify(await haproxy.stats())).toBe(true);
    const servedBy = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const r = await request(haproxy.port, '127.0.0.1', '/api/id/segment/lb');
      expect(r.status, r.body).toBe(200);
      servedBy.add(String(r.headers['x-served-by']));
    }
    expect([...servedBy].sort()).toEqual(['leaf1', 'leaf2']);
  });

  it('the audit trail names the client behind the proxy, and ignores X-Forwarded-For from anyone else', async () => {
    const wrong = JSON.stringify({ token: 'not-the-admin-token-at-all' });
    expect((await request(haproxy.port, '127.0.0.2', '/api/auth/login', { method: 'POST', body: wrong })).status).toBe(
      401,
    );
    // Straight to a node, not through the proxy: its forged header is not believed.
    expect(
      (
        await request(defined(nodes[0], 'the first node').port, '127.0.0.3', '/api/auth/login', {
          method: 'POST',
          body: wrong,
          headers: { 'x-forwarded-for': '198.51.100.9' },
        })
      ).status,
    ).toBe(401);
    const r = await request(haproxy.port, '127.0.0.1', '/api/admin/audit?limit=10', {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(r.status, r.body).toBe(200);
    const failed = (JSON.parse(r.body) as { entries: Array<{ action: string; address: string }> }).entries.filter(
      (e) => e.action === 'auth.login_failed',
    );
    expect(failed.map((e) => e.address).sort()).toEqual(['127.0.0.2', '127.0.0.3']);
  });

  it('a console session made through the proxy is good on every node (one LEAF_ADMIN_TOKEN signs them)', async () => {
    const login = await request(haproxy.port, '127.0.0.4', '/api/auth/login', {
      method: 'POST',
      body: JSON.stringify({ token: ADMIN }),
    });
    expect(login.status, login.body).toBe(200);
    const cookie = String(login.headers['set-cookie']?.[0]).split(';')[0] as string;
    for (const node of nodes) {
      const r = await request(node.port, '127.0.0.1', '/api/admin/tags', { headers: { cookie } });
      expect(r.status, r.body).toBe(200);
    }
  });
});
