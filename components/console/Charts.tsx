'use client';

import { CartesianGrid, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import type { ChartData } from './RateSource';
import { RATE_BUCKET_MS, showInt, showRate, showTime, rateSeries, stepSeries } from './display';

const AXIS = { stroke: 'var(--muted)', fontSize: 12, tickLine: false } as const;
const TOOLTIP_STYLE = {
  background: 'var(--surface)',
  border: '1px solid var(--border)',
  borderRadius: 6,
  color: 'var(--text)',
};

/**
 * IDs per second per 5-second bucket, as the chosen source recorded them; a bucket nobody recorded is a gap.
 * `data-points` carries what is drawn ([bucket start, IDs or null]), so a test reads the chart, not a guess.
 */
export function RateChart({ data: chart, span }: { data: ChartData; span: [number, number] }) {
  const data = rateSeries(chart.rate, span);
  const total = chart.rate.reduce((s, p) => s + (p.ids ?? 0), 0);
  const gaps = data.filter((p) => p.perSec === null).length;
  // A known bucket between two gaps has no line to be part of: it is drawn as a dot, or it would not show at all.
  const isolated = new Set(
    data
      .filter((p, i) => p.perSec !== null && data[i - 1]?.perSec == null && data[i + 1]?.perSec == null)
      .map((p) => p.t),
  );
  const drawn = data.map((p) => [p.t, p.perSec === null ? null : Math.round(p.perSec * (RATE_BUCKET_MS / 1000))]);
  return (
    <figure
      className="chart"
      data-testid="rate-chart"
      data-total={total}
      data-points={JSON.stringify(drawn)}
      aria-label="Consumption rate"
    >
      <figcaption>
        <span>Consumption rate (IDs/s)</span>
        <span className="muted" data-testid="rate-total">
          {showInt(total)} IDs recorded
        </span>
      </figcaption>
      <LineChart
        responsive
        style={{ width: '100%', height: 200 }}
        data={data}
        margin={{ top: 8, right: 12, bottom: 0, left: 0 }}
      >
        <CartesianGrid stroke="var(--grid)" vertical={false} />
        <XAxis
          dataKey="t"
          type="number"
          scale="time"
          domain={span}
          ticks={ticksOf(span)}
          tickFormatter={tickFormat(span)}
          interval="preserveStartEnd"
          minTickGap={40}
          {...AXIS}
        />
        <YAxis width={72} allowDecimals={false} tickFormatter={(v: number) => showRate(v)} {...AXIS} />
        <Tooltip
          contentStyle={TOOLTIP_STYLE}
          labelFormatter={(t) => showTime(Number(t))}
          formatter={(v) => [v == null ? 'not recorded' : `${showRate(Number(v))} IDs/s`, 'rate']}
        />
        <Line
          type="linear"
          dataKey="perSec"
          stroke="var(--chart-1)"
          strokeWidth={2}
          dot={(props: { cx?: number; cy?: number; payload?: { t: number } }) =>
            isolated.has(props.payload?.t ?? NaN) && props.cx !== undefined && props.cy !== undefined ? (
              <circle key={props.payload!.t} cx={props.cx} cy={props.cy} r={3} fill="var(--chart-1)" />
            ) : (
              <g key={props.payload?.t} />
            )
          }
          connectNulls={false}
          isAnimationActive={false}
        />
      </LineChart>
      <p className="chart-note muted small" data-testid="rate-note">
        IDs per second in each 5 s bucket, from {chart.from}&apos;s own samples
        {gaps > 0 ? '; gaps: buckets not recorded' : ''}.
        <MissingNodes missing={chart.missing} />
      </p>
    </figure>
  );
}

/**
 * Each node's engine step over time (Leaf's dynamic step grows when segments go fast), from its segment loads;
 * range leases are marks of their own, labelled with their size — a lease is not the tag's step.
 */
export function StepChart({ data: chart, span }: { data: ChartData; span: [number, number] }) {
  const lines = chart.steps
    .filter((l) => l.points.length > 0)
    .map((l) => ({ ...l, points: stepSeries(l.points, span) }));
  const loads = chart.steps.reduce((s, l) => s + l.points.length, 0);
  const leases = chart.leases.filter((m) => m.t >= span[0]);
  return (
    <figure
      className="chart"
      data-testid="step-chart"
      data-steps={JSON.stringify(chart.steps.map((l) => [l.nodeId, l.points.map((p) => [p.t, p.step])]))}
      data-leases={JSON.stringify(leases.map((m) => [m.t, m.size, m.nodeId]))}
      aria-label="Step over time"
    >
      <figcaption>
        <span>Step</span>
        <span className="muted">
          {loads === 0 ? 'no segment loaded yet' : `${loads} segment load${loads === 1 ? '' : 's'}`}
          {leases.length > 0 && ` · ${leases.length} range lease${leases.length === 1 ? '' : 's'}`}
        </span>
      </figcaption>
      {lines.length === 0 && leases.length === 0 ? (
        <p className="chart-empty muted">No segment has been loaded yet.</p>
      ) : (
        <LineChart responsive style={{ width: '100%', height: 200 }} margin={{ top: 8, right: 12, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="var(--grid)" vertical={false} />
          <XAxis
            dataKey="t"
            type="number"
            scale="time"
            domain={span}
            ticks={ticksOf(span)}
            tickFormatter={tickFormat(span)}
            interval="preserveStartEnd"
            minTickGap={40}
            allowDuplicatedCategory={false}
            {...AXIS}
          />
          <YAxis
            width={72}
            allowDecimals={false}
            domain={[0, 'auto']}
            tickFormatter={(v: number) => showInt(v)}
            {...AXIS}
          />
          <Tooltip
            contentStyle={TOOLTIP_STYLE}
            labelFormatter={(t) => showTime(Number(t))}
            formatter={(v, _name, item) => [showInt(Number(v)), `step (${String(item.payload?.nodeId ?? '')})`]}
          />
          {leases.map((m) => (
            <ReferenceLine
              key={`${m.nodeId}-${m.t}`}
              x={m.t}
              stroke="var(--chart-3)"
              strokeDasharray="3 3"
              label={{
                value: `lease ${showInt(m.size)}`,
                fill: 'var(--muted)',
                fontSize: 11,
                position: 'insideTopRight',
              }}
            />
          ))}
          {lines.map((l, i) => (
            <Line
              key={l.nodeId}
              data={l.points.map((p) => ({ ...p, nodeId: l.nodeId }))}
              name={l.nodeId}
              type="stepAfter"
              dataKey="step"
              stroke={i % 2 === 0 ? 'var(--chart-2)' : 'var(--chart-4)'}
              strokeWidth={2}
              dot={{ r: 2 }}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      )}
      <p className="chart-note muted small" data-testid="step-note">
        The engine step of each segment {chart.from} loaded
        {chart.steps.length > 1 ? ', a line per node' : ''}; dashed marks: range leases handed to clients.
        <MissingNodes missing={chart.missing} />
      </p>
    </figure>
  );
}

function MissingNodes({ missing }: { missing: ChartData['missing'] }) {
  if (missing.length === 0) return null;
  return <span data-testid="chart-missing"> Not read: {missing.map((m) => `${m.nodeId} (${m.why})`).join(', ')}.</span>;
}

/** Four ticks on round times (10 s, 1 min or 5 min apart), the same on both charts. */
function ticksOf([start, end]: [number, number]): number[] {
  const unit = end - start > 10 * 60_000 ? 5 * 60_000 : end - start > 4 * 60_000 ? 60_000 : 30_000;
  const ticks: number[] = [];
  for (let t = Math.ceil(start / unit) * unit; t <= end; t += unit) ticks.push(t);
  return ticks;
}

/** HH:MM over a long span, HH:MM:SS over a short one; UTC, as every time on the console. */
function tickFormat([start, end]: [number, number]): (t: number) => string {
  const seconds = end - start < 10 * 60_000;
  return (t) => new Date(t).toISOString().slice(11, seconds ? 19 : 16);
}
