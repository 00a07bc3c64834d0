/**
 * A throwaway single-member etcd (Debian's etcd-server, v3.4) on 127.0.0.1 for the Patroni cluster's DCS: free
 * client and peer ports (never 2379/2380), its own data dir, v3 API only, stopped by PID. Its environment carries
 * the caller's marker, so the cluster's exit hook and watchdog find it like the rest (markedProcesses.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { type Log, ensurePackage, findExecutable } from './apt';
import { stopChild, track } from './children';
import { logTail } from './mariadbd';
import { markedEnv } from './markedProcesses';
import { freePort } from './ports';
import { pollFor } from './wait';

export interface EtcdServer {
  /** "127.0.0.1:port" of the client API. */
  readonly host: string;
  readonly pid: number;
  readonly logFile: string;
  tail(lines?: number): string;
  stop(): Promise<void>;
}

/** Finds etcd, installing Debian's etcd-server when it is missing. */
export function ensureEtcd(log: Log): string {
  return ensurePackage('etcd-server', () => findExecutable(['etcd']), log);
}

/** 2379/2380 are etcd's defaults: a system etcd may want them. */
async function etcdPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port !== 2379 && port !== 2380) return port;
  }
}

async function healthy(host: string): Promise<boolean> {
  try {
    const response = await fetch(`http://${host}/health`, { signal: AbortSignal.timeout(1_000) });
    return response.ok && ((await response.json()) as { health?: string }).health === 'true';
  } catch {
    return false;
  }
}

/**
 * Starts etcd with its data in `dataDir` (a tmpfs is best: every lease renewal is an fsync, and a stalled fsync
 * longer than Patroni's retry_timeout makes the primary demote itself) and waits, bounded, until /health is true.
 */
export async function startEtcd(o: {
  dataDir: string;
  logDir: string;
  marker: string;
  log: Log;
  timeoutMs?: number;
}): Promise<EtcdServer> {
  const etcd = ensureEtcd(o.log);
  const timeoutMs = o.timeoutMs ?? 20_000;
  const [client, peer] = [await etcdPort(), await etcdPort()];
  const host = `127.0.0.1:${client}`;
  const peerUrl = `http://127.0.0.1:${peer}`;
  const logFile = path.join(o.logDir, 'etcd.log');
  const out = fs.openSync(logFile, 'a');
  const child: ChildProcess = track(
    spawn(
      etcd,
      [
        '--name=leaf-etcd',
        `--data-dir=${o.dataDir}`,
        `--listen-client-urls=http://${host}`,
        `--advertise-client-urls=http://${host}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=leaf-etcd=${peerUrl}`,
        '--initial-cluster-state=new',
        '--enable-v2=false',
        '--logger=zap',
        '--log-level=warn',
      ],
      { stdio: ['ignore', out, out], env: markedEnv(o.marker) },
    ),
  );
  fs.closeSync(out);
  let exit: string | null = null;
  child.once('exit', (code, signal) => (exit = `exited with code ${code} signal ${signal}`));
  const tail = (lines = 25) => logTail(logFile, lines);
  const ok = await pollFor(timeoutMs, async () => {
    if (exit !== null) throw new Error(`etcd ${exit} before it was healthy. Log tail:\n${tail()}`);
    return (await healthy(host)) ? true : undefined;
  });
  if (ok === undefined) {
    await stopChild(child, 0, { signal: 'SIGKILL' });
    throw new Error(`etcd not healthy on ${host} within ${timeoutMs} ms. Log tail:\n${tail()}`);
  }
  o.log(`etcd pid ${child.pid} serving on ${host}`);
  return { host, pid: child.pid ?? -1, logFile, tail, stop: () => stopChild(child, 3_000) };
}
