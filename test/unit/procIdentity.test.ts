/**
 * Proving a process dead from the same machine (lib/ordered/procIdentity.ts), on real processes: this one and a live
 * child are not; a child once it exited is; a key of another boot, pid namespace or shape never is.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { provedDead, thisProcess } from '@/lib/ordered/procIdentity';

const linux = fs.existsSync('/proc/self/stat');

/** The key `thisProcess()` gives a process with `pid`, read as that process would. */
function keyOf(pid: number): string {
  const own = thisProcess().procKey.split(':');
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const startTicks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  return [...own.slice(0, -2), String(pid), startTicks].join(':');
}

describe.runIf(linux)('proving a process dead', () => {
  it('this process and a live child are not dead; the child is once it exited', async () => {
    const me = thisProcess();
    expect(me.procKey).toMatch(/^linux:[0-9a-f-]+:pid:\[\d+\]:\d+:\d+$/);
    expect(provedDead(me.procKey)).toBe(false);
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    await once(child, 'spawn');
    const key = keyOf(child.pid!);
    expect(provedDead(key)).toBe(false);
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(provedDead(key)).toBe(true);
  });

  it('a reused pid (another start time) is dead; another machine, namespace or shape is never proven', () => {
    const parts = thisProcess().procKey.split(':');
    const otherStart = [...parts.slice(0, -1), String(Number(parts.at(-1)) + 1)].join(':');
    expect(provedDead(otherStart)).toBe(true);
    const otherBoot = ['linux', '00000000-0000-0000-0000-000000000000', ...parts.slice(2)].join(':');
    expect(provedDead(otherBoot)).toBe(false);
    const otherNs = [...parts.slice(0, 2), 'pid:[1]', ...parts.slice(4)].join(':'); // the namespace is "pid:[inode]"
    expect(provedDead(otherNs)).toBe(false);
    expect(provedDead('other:somehost:123')).toBe(false);
    expect(provedDead('test:a')).toBe(false);
  });
});
