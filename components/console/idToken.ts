/**
 * The ID token the console's "Take IDs" boxes send (`Authorization: Bearer …`) once a node's ID routes need one
 * (LEAF_ID_TOKEN, or any access token created): kept in this browser tab only (sessionStorage), never sent to the
 * admin API and never stored by the server.
 */
const KEY = 'leaf-ts:id-token';

export function readIdToken(): string | null {
  try {
    const token = window.sessionStorage.getItem(KEY);
    return token === null || token === '' ? null : token;
  } catch {
    return null; // storage refused (private mode, sandboxed frame): no token
  }
}

export function saveIdToken(token: string): void {
  try {
    if (token === '') window.sessionStorage.removeItem(KEY);
    else window.sessionStorage.setItem(KEY, token);
  } catch {
    // storage refused: the field still shows what was typed, the next request goes without
  }
}
