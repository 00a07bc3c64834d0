'use client';

import type { LoadRecord } from './api';
import { showInt, showTime } from './display';

export function LoadLog({ loads }: { loads: LoadRecord[] }) {
  const rows = [...loads].sort((a, b) => b.at - a.at);
  return (
    <section aria-labelledby="loads-title" className="card">
      <h2 id="loads-title">Claims on this node</h2>
      {rows.length === 0 ? (
        <p className="muted">
          No segment has been loaded on this node yet. Take an ID and the first load appears here.
        </p>
      ) : (
        <div className="table-wrap">
          <table className="load-table" aria-label="Claims">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Claim</th>
                <th scope="col" className="num">
                  IDs
                </th>
                <th scope="col" className="num">
                  Duration
                </th>
                <th scope="col">Result</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((l, i) => (
                <tr key={`${l.at}-${i}`}>
                  <td className="mono" data-label="Time">
                    {showTime(l.at)}
                  </td>
                  <td data-label="Claim">{l.purpose === 'lease' ? 'range lease' : 'segment'}</td>
                  <td className="num" data-label="IDs">
                    {showInt(l.step)}
                  </td>
                  <td className="num" data-label="Duration">
                    {l.durationMs < 10 ? l.durationMs.toFixed(1) : showInt(l.durationMs)} ms
                  </td>
                  <td data-label="Result">
                    {l.ok ? (
                      <span className="state state-ready">ok</span>
                    ) : (
                      <span className="state state-error">{l.error ?? 'failed'}</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
