'use client';

import Link from 'next/link';
import { usePathname, useRouter } from 'next/navigation';
import { useLogout, useSession } from './queries';

const PAGES = [
  { href: '/', label: 'Tags' },
  { href: '/nodes', label: 'Nodes' },
  { href: '/formats', label: 'Formats' },
  { href: '/tokens', label: 'Tokens' },
  { href: '/audit', label: 'Audit' },
] as const;

/** A tag's page belongs to Tags, a format's to Formats. */
function isCurrent(pathname: string, href: string): boolean {
  if (href === '/') return pathname === '/' || pathname.startsWith('/tags/');
  return pathname === href || pathname.startsWith(`${href}/`);
}

export function AppHeader() {
  const session = useSession();
  const logout = useLogout();
  const router = useRouter();
  const pathname = usePathname();
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
          {PAGES.map(({ href, label }) => (
            <Link key={href} href={href} aria-current={isCurrent(pathname, href) ? 'page' : undefined}>
              {label}
            </Link>
          ))}
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
