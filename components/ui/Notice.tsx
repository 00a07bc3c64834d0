import type { ReactNode } from 'react';

/** A message box: `error` is announced at once (role=alert), `info` politely. */
export function Notice({
  kind,
  title,
  children,
  testId,
}: {
  kind: 'error' | 'info' | 'warn';
  title?: string;
  children?: ReactNode;
  testId?: string;
}) {
  return (
    <div className={`notice notice-${kind}`} role={kind === 'info' ? 'status' : 'alert'} data-testid={testId}>
      {title && <strong>{title}</strong>}
      {children && <div>{children}</div>}
    </div>
  );
}
