/** A small horizontal bar for a share 0..100; `null` draws an empty track. */
export function Meter({
  percent,
  label,
  tone,
}: {
  percent: number | null;
  label: string;
  tone?: 'ok' | 'warn' | 'low' | 'idle';
}) {
  const value = percent ?? 0;
  const t = tone ?? (percent === null ? 'idle' : value < 10 ? 'low' : value < 30 ? 'warn' : 'ok');
  return (
    <span
      className={`meter meter-${t}`}
      role="meter"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(value)}
      aria-valuetext={percent === null ? 'none' : `${Math.round(value)}%`}
    >
      <span className="meter-fill" style={{ width: `${value}%` }} />
    </span>
  );
}
