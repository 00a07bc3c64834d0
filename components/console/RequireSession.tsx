'use client';

import { usePathname, useRouter } from 'next/navigation';
import { type ReactNode, useEffect } from 'react';
import { Notice } from '../ui/Notice';
import { useSession } from './queries';

/** Renders its children for a signed-in operator; anyone else is sent to /login and brought back afterwards. */
export function RequireSession({ children }: { children: ReactNode }) {
  const session = useSession();
  const router = useRouter();
  const pathname = usePathname();
  const signedOut = session.data?.authenticated === false;

  useEffect(() => {
    if (signedOut) router.replace(`/login?next=${encodeURIComponent(`${pathname}${window.location.search}`)}`);
  }, [signedOut, pathname, router]);

  if (session.isPending) return <p className="muted">Checking your session…</p>;
  if (session.isError) {
    return (
      <Notice kind="error" title="The server cannot be reached." testId="session-error">
        {session.error.message}{' '}
        <button type="button" className="link" onClick={() => void session.refetch()}>
          Try again
        </button>
      </Notice>
    );
  }
  if (signedOut) return <p className="muted">Taking you to the login page…</p>;
  return <>{children}</>;
}
