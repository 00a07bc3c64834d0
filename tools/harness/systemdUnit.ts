/**
 * What a systemd unit file tells a test about how systemd would run and stop the service: the command line, the
 * working directory, the kill mode and the stop timeout. Just the [Service] keys we use, read as systemd reads them
 * (one `Key=value` a line, `#`/`;` comments, the last assignment wins).
 */
import fs from 'node:fs';

export interface ServiceUnit {
  /** ExecStart as argv (our units quote nothing; a quote is refused rather than misread). */
  execStart: string[];
  workingDirectory: string | undefined;
  /** control-group (systemd's default), mixed, process or none. */
  killMode: string;
  /** TimeoutStopSec in ms (systemd's default 90 s). */
  timeoutStopMs: number;
  /** Environment= assignments. */
  environment: Record<string, string>;
}

export function readServiceUnit(file: string): ServiceUnit {
  const service = new Map<string, string[]>();
  let section = '';
  for (const raw of fs.readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    if (line.startsWith('[')) {
      section = line;
      continue;
    }
    const eq = line.indexOf('=');
    if (section !== '[Service]' || eq === -1) continue;
    const key = line.slice(0, eq).trim();
    service.set(key, [...(service.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  const last = (key: string) => service.get(key)?.at(-1);
  const execStart = last('ExecStart');
  if (execStart === undefined) throw new Error(`${file}: no ExecStart in [Service]`);
  if (/["']/.test(execStart)) throw new Error(`${file}: ExecStart with quotes is not read here`);
  const environment: Record<string, string> = {};
  for (const assignment of service.get('Environment') ?? []) {
    const eq = assignment.indexOf('=');
    environment[assignment.slice(0, eq)] = assignment.slice(eq + 1);
  }
  const timeout = last('TimeoutStopSec');
  if (timeout !== undefined && !/^[0-9]+s?$/.test(timeout))
    throw new Error(`${file}: TimeoutStopSec=${timeout} is not read here (write seconds)`);
  return {
    execStart: execStart.split(/\s+/),
    workingDirectory: last('WorkingDirectory'),
    killMode: last('KillMode') ?? 'control-group',
    timeoutStopMs: timeout === undefined ? 90_000 : Number.parseInt(timeout, 10) * 1000,
    environment,
  };
}
