/** Number formats of the progress lines and results.md. */
export function fmtInt(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '—';
}
export function fmtRate(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} M` : fmtInt(n);
}
export function fmtMs(n: number): string {
  return Number.isFinite(n) ? n.toFixed(2) : '—';
}
export function fmtUs(n: number): string {
  return Number.isFinite(n) ? n.toFixed(1) : '—';
}
/** Two significant digits for small values (writes per 1,000 IDs). */
export function fmtSmall(n: number): string {
  if (!Number.isFinite(n)) return '—';
  if (n === 0) return '0';
  if (n >= 100) return fmtInt(n);
  return Number(n.toPrecision(2)).toString();
}
export function fmtX(n: number): string {
  if (!Number.isFinite(n)) return '—';
  return n >= 100 ? `${fmtInt(n)}×` : n >= 10 ? `${n.toFixed(1)}×` : `${n.toFixed(2)}×`;
}
export function pct(n: number): string {
  return Number.isFinite(n) ? (n * 100).toFixed(0) : '—';
}
export function mark(ok: boolean): string {
  return ok ? '✅ met' : '❌ MISSED';
}
