'use client';

import { useRouter } from 'next/navigation';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { Field } from '../ui/Field';
import { Notice } from '../ui/Notice';
import { isApiError } from './api';
import { useLogin, useSession } from './queries';

/**
 * The admin token, typed or handed over in the URL fragment (`/login#token=…`, as the server prints it at first
 * start). A token from the fragment is removed from the address bar at once and submitted.
 */
export function LoginForm({ next, tokenFile }: { next: string; tokenFile: string | null | undefined }) {
  const [token, setToken] = useState('');
  const login = useLogin();
  const session = useSession();
  const router = useRouter();
  const fragmentRead = useRef(false);

  const submit = (value: string) => {
    if (value.trim().length === 0) return;
    login.mutate(value.trim(), { onSuccess: () => router.replace(next) });
  };

  useEffect(() => {
    if (fragmentRead.current) return;
    fragmentRead.current = true;
    const hash = new URLSearchParams(window.location.hash.slice(1));
    const fragmentToken = hash.get('token');
    if (fragmentToken) {
      window.history.replaceState(null, '', window.location.pathname + window.location.search);
      // The fragment lives outside React (the URL), read once at mount: copying it into state here is the sync.
      // eslint-disable-next-line react-hooks/set-state-in-effect
      setToken(fragmentToken);
      submit(fragmentToken);
    }
    // Runs once on mount: the fragment is read a single time.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Already signed in (or just now): on to where the operator was going.
  const signedIn = session.data?.authenticated === true;
  useEffect(() => {
    if (signedIn) router.replace(next);
  }, [signedIn, next, router]);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    submit(token);
  };

  const refused = login.error !== null && isApiError(login.error) && login.error.status === 401;
  return (
    <form className="card login-card" onSubmit={onSubmit} noValidate aria-labelledby="login-title">
      <h1 id="login-title">Log in</h1>
      <p className="muted" data-testid="token-source">
        {tokenFile === null ? (
          <>
            Paste the admin token: this node reads it from <code>LEAF_ADMIN_TOKEN</code>.
          </>
        ) : tokenFile !== undefined ? (
          <>
            Paste the admin token from <code>{tokenFile}</code>: this node made it at its first start and printed a
            login link for it then.
          </>
        ) : (
          <>
            Paste the admin token: <code>LEAF_ADMIN_TOKEN</code>, or the file <code>admin-token</code> in the
            node&apos;s data directory (<code>LEAF_DATA_DIR</code>).
          </>
        )}
      </p>
      <Field
        label="Admin token"
        name="token"
        type="password"
        autoComplete="current-password"
        autoFocus
        value={token}
        onChange={(e) => setToken(e.target.value)}
        error={refused ? 'That token is not accepted.' : undefined}
      />
      {login.error !== null && !refused && (
        <Notice kind="error" title="Could not log in.">
          {login.error.message}
        </Notice>
      )}
      <button type="submit" className="button-primary" disabled={login.isPending || token.trim().length === 0}>
        {login.isPending ? 'Logging in…' : 'Log in'}
      </button>
    </form>
  );
}
