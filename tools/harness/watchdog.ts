/**
 * A tiny detached Node process per server: should the process that started the server die without cleaning up
 * (e.g. killed with SIGKILL, so no 'exit' hook ran), it stops the server. It acts only while the server's
 * /proc/<pid>/cmdline (or environ) still carries `marker`, so a recycled PID is never touched.
 */
import { spawn } from 'node:child_process';

export interface WatchdogOptions {
  /** The server's PID. */
  pid: number;
  /** A string only this server's /proc entry carries (its datadir, a run id). */
  marker: string;
  /** Where the marker is looked for. */
  where: 'cmdline' | 'environ';
  /** 0: SIGKILL at once; else SIGCONT + SIGTERM, SIGKILL after this many ms. */
  graceMs?: number;
  /** Removed after the server was stopped. */
  removeDir?: string;
}

const SCRIPT = `
const [ownerPid, pid, marker, where, graceMs, dir] = process.argv.slice(1);
const fs = require('fs');
const alive = (p) => { try { process.kill(+p, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const ours = () => { try { return fs.readFileSync('/proc/' + pid + '/' + where, where === 'environ' ? 'latin1' : 'utf8').includes(marker); } catch { return false; } };
const removeDir = () => { if (dir) setTimeout(() => { try { fs.rmSync(dir, { recursive: true, force: true }); } catch {} }, 500); };
const timer = setInterval(() => {
  if (!alive(pid) || !ours()) { clearInterval(timer); return; }
  if (alive(ownerPid)) return;
  clearInterval(timer);
  if (+graceMs === 0) { try { process.kill(+pid, 'SIGKILL'); } catch {} removeDir(); return; }
  try { process.kill(+pid, 'SIGCONT'); process.kill(+pid, 'SIGTERM'); } catch {}
  setTimeout(() => {
    try { if (ours()) process.kill(+pid, 'SIGKILL'); } catch {}
    removeDir();
  }, +graceMs);
}, 1000);
`;

export function spawnWatchdog({ pid, marker, where, graceMs = 0, removeDir = '' }: WatchdogOptions): void {
  spawn(process.execPath, ['-e', SCRIPT, String(process.pid), String(pid), marker, where, String(graceMs), removeDir], {
    detached: true,
    stdio: 'ignore',
  }).unref();
}
