import type { Metadata } from 'next';
import { LoginForm } from '@/components/console/LoginForm';
import { currentRuntime } from '@/lib/runtime';

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
  // Where this node's token is (never what it is): LEAF_ADMIN_TOKEN, or the file in its data directory.
  const admin = currentRuntime()?.console.admin;
  const tokenFile = admin === undefined ? undefined : admin.file;
  return <LoginForm next={safeNext(next)} tokenFile={tokenFile} />;
}
