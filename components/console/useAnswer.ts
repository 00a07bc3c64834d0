'use client';

import { useState } from 'react';
import { isApiError } from './api';

/** One request a form sends on submit: its answer, or the one line of its error, and whether it is in flight. */
export function useAnswer<T>() {
  const [answer, setAnswer] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const fail = (message: string) => {
    setAnswer(null);
    setError(message);
  };
  const run = async (request: () => Promise<T>) => {
    setPending(true);
    setError(null);
    try {
      setAnswer(await request());
    } catch (e) {
      fail(isApiError(e) ? e.message : String(e));
    } finally {
      setPending(false);
    }
  };
  return { answer, error, pending, run, fail };
}
