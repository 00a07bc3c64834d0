'use client';

import { CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { RatePoint, StepPoint } from './api';
import { showInt, showRate, showTime, rateSeries, stepSeries } from './display';

const AXIS = { stroke: 'var(--muted)', fontSize: 12, tickLine: false } as const;
const TOOLTIP_STYLE = {
  background: 'var(--surface)',
  border: '1px solid var(--border)',
  borderRadius: 6,
  color: 'var(--text)',
};

/** IDs per second over (at most) the last 15 minutes, one point per 5-second bucket. */
export function RateChart({ points, span }: { points: RatePoint[]; span: [number, number] }) {
  const data = rateSeries(points, span);
  const total = points.reduce((s, p) => s + p.ids, 0);
  return (
    <figure className="chart" data-testid="rate-chart" data-total={total} aria-label="Consumption rate">
      <figcaption>
        <span>Consumption rate (IDs/s)</span>
        <span className="muted" data-testid="rate-total">
          {showInt(total)} IDs in 15 min
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
        <YAxis width={48} allowDecimals={false} tickFormatter={(v: number) => showRate(v)} {...AXIS} />
        <Tooltip
          contentStyle={TOOLTIP_STYLE}
          labelFormatter={(t) => showTime(Number(t))}
          formatter={(v) => [`${showRate(Number(v))} IDs/s`, 'rate']}
        />
        <Line
          type="linear"
          dataKey="perSec"
          stroke="var(--chart-1)"
          strokeWidth={2}
          dot={false}
          isAnimationActive={false}
        />
      </LineChart>
    </figure>
  );
}

/** The step of each segment load over time (Leaf's dynamic step doubles when segments go fast). */
export function StepChart({ points, span }: { points: StepPoint[]; span: [number, number] }) {
  const data = stepSeries(points, span);
  return (
    <figure className="chart" data-testid="step-chart" aria-label="Step over time">
      <figcaption>
        <span>Step</span>
        <span className="muted">
          {points.length === 0 ? 'no load yet' : `${points.length} change${points.length === 1 ? '' : 's'}`}
        </span>
      </figcaption>
      {data.length === 0 ? (
        <p className="chart-empty muted">No segment has been loaded yet.</p>
      ) : (
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
          <YAxis
            width={56}
            allowDecimals={false}
            domain={[0, 'auto']}
            tickFormatter={(v: number) => showInt(v)}
            {...AXIS}
          />
          <Tooltip
            contentStyle={TOOLTIP_STYLE}
            labelFormatter={(t) => showTime(Number(t))}
            formatter={(v) => [showInt(Number(v)), 'step']}
          />
          <Line
            type="stepAfter"
            dataKey="step"
            stroke="var(--chart-2)"
            strokeWidth={2}
            dot={{ r: 2 }}
            isAnimationActive={false}
          />
        </LineChart>
      )}
    </figure>
  );
}

/** Four ticks on round times (10 s, 1 min or 5 min apart), the same on both charts. */
function ticksOf([start, end]: [number, number]): number[] {
  const unit = end - start > 10 * 60_000 ? 5 * 60_000 : end - start > 4 * 60_000 ? 60_000 : 30_000;
  const ticks: number[] = [];
  for (let t = Math.ceil(start / unit) * unit; t <= end; t += unit) ticks.push(t);
  return ticks;
}

/** HH:MM over a long span, HH:MM:SS over a short one. */
function tickFormat([start, end]: [number, number]): (t: number) => string {
  const seconds = end - start < 10 * 60_000;
  return (t) => {
    const d = new Date(t);
    const hm = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
    return seconds ? `${hm}:${String(d.getSeconds()).padStart(2, '0')}` : hm;
  };
}
