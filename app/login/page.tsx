import type { Metadata } from 'next';
import { LoginForm } from '@/components/console/LoginForm';

export const metadata: Metadata = { title: 'Log in' };

/** Only a path on this site is a place to return to (`//host` and `/\host` are not). */
function safeNext(raw: string | string[] | undefined): string {
  const next = Array.isArray(raw) ? raw[0] : raw;
  return next !== undefined && next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') ? next : '/';
}

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { next } = await searchParams;
  return <LoginForm next={safeNext(next)} />;
}
