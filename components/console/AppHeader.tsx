'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useLogout, useSession } from './queries';

export function AppHeader() {
  const session = useSession();
  const logout = useLogout();
  const router = useRouter();
  return (
    <header className="app-header">
      <Link href="/" className="brand">
        <span className="brand-mark" aria-hidden="true">
          ◆
        </span>{' '}
        leaf-ts <span className="muted">console</span>
      </Link>
      {session.data?.authenticated && (
        <nav aria-label="Console" className="header-nav">
          <Link href="/">Tags</Link>
          <Link href="/nodes">Nodes</Link>
          <Link href="/formats">Formats</Link>
          <Link href="/tokens">Tokens</Link>
          <Link href="/audit">Audit</Link>
          <button
            type="button"
            className="button-quiet"
            disabled={logout.isPending}
            onClick={() => logout.mutate(undefined, { onSettled: () => router.replace('/login') })}
          >
            Log out
          </button>
        </nav>
      )}
    </header>
  );
}
