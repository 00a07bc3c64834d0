/** Structured, one JSON object per line, to stderr. Quiet by default on the hot path: only loads and faults log. */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  log(level: LogLevel, event: string, fields?: Record<string, unknown>): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** The level comes from the configuration (LEAF_LOG_LEVEL, checked at start). */
export function createLogger(minLevel: LogLevel = 'info'): Logger {
  const min = ORDER[minLevel];
  return {
    log(level, event, fields) {
      if (ORDER[level] < min) return;
      const line: Record<string, unknown> = { t: new Date().toISOString(), level, event, ...fields };
      if (fields?.error instanceof Error) line.error = describeError(fields.error);
      process.stderr.write(JSON.stringify(line) + '\n');
    },
  };
}

export const silentLogger: Logger = { log() {} };

function describeError(e: Error): Record<string, unknown> {
  const cause = (e as { cause?: unknown }).cause;
  return {
    name: e.name,
    message: e.message,
    code: (e as { code?: unknown }).code,
    cause:
      cause instanceof Error
        ? { name: cause.name, message: cause.message, code: (cause as { code?: unknown }).code }
        : undefined,
  };
}
