'use client';

import { Meter } from '../ui/Meter';
import type { EngineView } from './api';
import { showDecimal, showInt, remainingPercent } from './display';

/** Both halves of the double buffer: what is left of the current segment, and whether the next is in hand. */
export function BufferGauges({ engine }: { engine: EngineView | null }) {
  const c = engine?.current ?? null;
  const p = engine?.pending ?? null;
  const pct = remainingPercent(engine);
  return (
    <div className="gauges" data-testid="buffer-gauges">
      <div className="gauge">
        <div className="gauge-head">
          <span>Current segment</span>
          <span className="num">{pct === null ? '—' : `${Math.round(pct)}% left`}</span>
        </div>
        <Meter percent={pct} label="Current segment left" />
        <div className="gauge-foot muted small">
          {c === null ? (
            engine?.loading ? (
              'loading the first segment…'
            ) : (
              'no load yet'
            )
          ) : (
            <>
              <span className="mono">
                {showDecimal(c.start)}–{showDecimal(c.max)}
              </span>{' '}
              · next <span className="mono">{showDecimal(c.next)}</span> · {showInt(c.remaining)} left of{' '}
              {showInt(c.step)}
            </>
          )}
        </div>
      </div>
      <div className="gauge">
        <div className="gauge-head">
          <span>Next segment</span>
          <span>{p !== null ? 'ready' : engine?.loading ? 'loading…' : c === null ? '—' : 'not yet'}</span>
        </div>
        <Meter percent={p !== null ? 100 : null} label="Next segment" tone={p !== null ? 'ok' : 'idle'} />
        <div className="gauge-foot muted small">
          {p !== null ? (
            <>
              <span className="mono">
                {showDecimal(p.start)}–{showDecimal(p.max)}
              </span>{' '}
              · {showInt(p.step)} IDs
            </>
          ) : c === null ? (
            'loaded after the first'
          ) : (
            'fetched once 10% of the current one is used'
          )}
        </div>
      </div>
    </div>
  );
}
