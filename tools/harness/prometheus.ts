/**
 * A throwaway Prometheus server (Debian's `prometheus`, installed with apt-get when missing): own temp dir for its
 * config and TSDB, a free port on 127.0.0.1, scraping the given targets every second with a bearer token; stopped
 * by PID, SIGKILLed by the exit hook if still running. For the live round trip: a node's series read back through
 * Prometheus's own query API.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type Log, ensurePackage, findExecutable } from './apt';
import { isRunning, stopChild, track } from './children';
import { httpGetStatus } from './node';
import { freePort } from './ports';
import { pollFor } from './wait';

/** `prometheus` and `promtool` from PATH, else `apt-get install -y prometheus` (root). */
export function ensurePrometheus(log: Log): { prometheus: string; promtool: string } {
  return ensurePackage(
    'prometheus',
    () => {
      const prometheus = findExecutable(['prometheus']);
      const promtool = findExecutable(['promtool']);
      return prometheus !== undefined && promtool !== undefined ? { prometheus, promtool } : undefined;
    },
    log,
  );
}

export interface PrometheusScrape {
  /** host:port of each node. */
  targets: string[];
  /** Sent as `Authorization: Bearer <it>`. */
  bearerToken: string;
  metricsPath?: string;
  jobName?: string;
  /** Rule files to load (absolute paths). */
  ruleFiles?: string[];
}

export interface PrometheusServer {
  child: ChildProcess;
  port: number;
  url: string;
  /** GET /api/v1/query?query=…: the instant vector's samples, or an error thrown with Prometheus's words. */
  query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  stop(): Promise<void>;
}

export async function startPrometheus(
  dir: string,
  scrape: PrometheusScrape,
  log: Log,
  readyTimeoutMs = 30_000,
): Promise<PrometheusServer> {
  const { prometheus } = ensurePrometheus(log);
  fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
  const config = path.join(dir, 'prometheus.yml');
  // JSON is YAML: no YAML writer needed, and the token is quoted whatever it holds.
  fs.writeFileSync(
    config,
    JSON.stringify({
      global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
      rule_files: scrape.ruleFiles ?? [],
      scrape_configs: [
        {
          job_name: scrape.jobName ?? 'leaf',
          metrics_path: scrape.metricsPath ?? '/api/metrics',
          authorization: { type: 'Bearer', credentials: scrape.bearerToken },
          static_configs: [{ targets: scrape.targets }],
        },
      ],
    }),
    { mode: 0o600 },
  );
  const port = await freePort();
  const logFile = path.join(dir, 'prometheus.log');
  const out = fs.openSync(logFile, 'a');
  const child = track(
    spawn(
      prometheus,
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      {
        stdio: ['ignore', out, out],
      },
    ),
  );
  fs.closeSync(out);
  const started = Date.now();
  const ready = await pollFor(
    readyTimeoutMs,
    async () => (!isRunning(child) ? false : (await httpGetStatus(port, '/-/ready', 1_000)) === 200 ? true : undefined),
    200,
  );
  if (ready !== true) {
    child.kill('SIGKILL');
    const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n');
    throw new Error(
      `prometheus did not become ready on 127.0.0.1:${port} within ${readyTimeoutMs} ms. Log tail:\n${tail}`,
    );
  }
  log(
    `prometheus: PID ${child.pid} ready on 127.0.0.1:${port} in ${Date.now() - started} ms, scraping ${scrape.targets.join(', ')}`,
  );
  const url = `http://127.0.0.1:${port}`;
  return {
    child,
    port,
    url,
    async query(promql) {
      const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`, {
        signal: AbortSignal.timeout(5_000),
      });
      const body = (await response.json()) as {
        status: string;
        error?: string;
        data?: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
      };
      if (body.status !== 'success') throw new Error(`prometheus query ${promql}: ${body.error ?? response.status}`);
      return body.data?.result ?? [];
    },
    async stop() {
      if (!isRunning(child)) return;
      await stopChild(child, 5_000);
      log(`prometheus: stopped PID ${child.pid}`);
    },
  };
}
