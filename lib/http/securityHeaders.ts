/**
 * The console pages' security headers (docs/operations.md#security): a Content-Security-Policy whose scripts run
 * only by this response's nonce, no framing, no sniffing, no referrer beyond the origin, no powerful features; HSTS
 * only when the client reached us over TLS (the trusted-proxy rule of the Secure cookie). API answers carry
 * `nosniff` and `no-store` from lib/http/answer.ts.
 */

/** A fresh nonce for one response: 128 random bits, base64. */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

/**
 * The policy. `dev`: `next dev` evaluates code for fast refresh, so only there 'unsafe-eval' is added. Inline
 * `style` attributes stay allowed (a meter's width, a chart's size: no script can run from one); style elements and
 * every script need the nonce or come from this origin.
 */
export function contentSecurityPolicy(nonce: string, dev: boolean): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${dev ? " 'unsafe-eval'" : ''}`,
    `style-src-elem 'self' 'nonce-${nonce}'`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Every page's headers besides the policy; HSTS only over TLS (a browser ignores it over HTTP anyway). */
export function pageSecurityHeaders(secure: boolean): Record<string, string> {
  return {
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()',
    'cross-origin-opener-policy': 'same-origin',
    ...(secure ? { 'strict-transport-security': 'max-age=31536000' } : {}),
  };
}
