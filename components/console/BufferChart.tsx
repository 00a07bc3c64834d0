'use client';

import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts';
import type { NodeBufferView } from './api';
import { showInt } from './display';

const AXIS = { stroke: 'var(--muted)', fontSize: 12, tickLine: false } as const;

/** One bar per node: what is left of its current segment, and its loaded next one (as its last heartbeat said). */
export function bufferBars(nodes: NodeBufferView[]): { nodeId: string; current: number; next: number }[] {
  return nodes
    .filter((n) => n.state === 'up')
    .map((n) => {
      const current = n.current ?? n.buffered; // an older node does not split them: all of it shows as current
      return { nodeId: n.nodeId, current, next: Math.max(0, n.buffered - current) };
    });
}

/**
 * The remaining buffer per node: the IDs each up node can still hand out without the database, split into the
 * current segment's rest and the next segment (loaded in the background). A node that gave its buffer back,
 * restarted or lost a strict tag to its owner shows what it holds now.
 */
export function BufferChart({ nodes }: { nodes: NodeBufferView[] }) {
  const data = bufferBars(nodes);
  return (
    <figure
      className="chart"
      data-testid="buffer-chart"
      data-bars={JSON.stringify(data.map((d) => [d.nodeId, d.current, d.next]))}
      aria-label="Remaining buffer per node"
    >
      <figcaption>
        <span>Remaining buffer</span>
        <span className="muted">
          {data.length} node{data.length === 1 ? '' : 's'} up
        </span>
      </figcaption>
      {data.length === 0 ? (
        <p className="chart-empty muted">No up node holds a buffer for this tag.</p>
      ) : (
        <BarChart
          responsive
          layout="vertical"
          data={data}
          style={{ width: '100%', height: 40 + 32 * data.length }}
          margin={{ top: 4, right: 12, bottom: 0, left: 0 }}
        >
          <CartesianGrid stroke="var(--grid)" horizontal={false} />
          <XAxis type="number" allowDecimals={false} tickFormatter={(v: number) => showInt(v)} {...AXIS} />
          <YAxis type="category" dataKey="nodeId" width={96} {...AXIS} />
          <Tooltip
            contentStyle={{ background: 'var(--surface)', border: '1px solid var(--border)', color: 'var(--text)' }}
            formatter={(v, name) => [showInt(Number(v)), name]}
          />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          <Bar dataKey="current" name="current segment" stackId="b" fill="var(--chart-1)" isAnimationActive={false} />
          <Bar dataKey="next" name="next segment" stackId="b" fill="var(--chart-4)" isAnimationActive={false} />
        </BarChart>
      )}
      <p className="chart-note muted small">
        IDs each up node can hand out without the database, from its last heartbeat: the current segment&apos;s rest,
        then the next segment it loaded.
      </p>
    </figure>
  );
}
