'use client';

import { type FormEvent, useState } from 'react';
import { type SnowflakeFleet, decodeSnowflakeId, snowflakeAt } from '@/lib/client/snowflakeTime';
import { Field } from '../ui/Field';
import { Notice } from '../ui/Notice';
import { useHealth } from './queries';
import { type TimeWindowText, TimeWindowFields, readWindow } from './TimeWindow';

/**
 * Snowflake IDs and time, computed in the browser from the serving node's settings (as @leaf-ts/client does, no
 * request): an ID's fields, and the IDs issued in a window — bounds for a range query (docs/design.md#ids-that-tell-when).
 */
export function SnowflakeTime() {
  const health = useHealth().data;
  const snowflake = health?.snowflake;
  if (snowflake === undefined || snowflake.state === 'off') return null;
  const fleet: SnowflakeFleet = {
    layout: snowflake.layout,
    epoch: new Date(snowflake.epoch),
    regions: health?.region?.regions ?? 1,
    region: snowflake.region,
  };
  return (
    <div className="card" data-testid="snowflake-time">
      <h2>Snowflake IDs and time</h2>
      <p className="small muted">
        Computed from this node&apos;s layout, epoch and region, by its clock: IDs of nodes whose clocks run behind or
        ahead shift by as much.
      </p>
      <DecodeSnowflake fleet={fleet} />
      <IssuedBetween fleet={fleet} />
    </div>
  );
}

function DecodeSnowflake({ fleet }: { fleet: SnowflakeFleet }) {
  const [id, setId] = useState('');
  const [answer, setAnswer] = useState<ReturnType<typeof decodeSnowflakeId> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    try {
      setAnswer(decodeSnowflakeId(fleet, id.trim()));
      setError(null);
    } catch (e) {
      setAnswer(null);
      setError((e as Error).message);
    }
  };
  return (
    <form onSubmit={onSubmit} noValidate data-testid="snowflake-decode">
      <Field
        label="When was this snowflake ID issued?"
        value={id}
        onChange={(e) => setId(e.target.value)}
        autoComplete="off"
        spellCheck={false}
        inputClassName="mono"
      />
      <div className="form-actions">
        <button type="submit">Decode</button>
      </div>
      {error !== null && (
        <Notice kind="error" title="That ID cannot be decoded." testId="snowflake-decode-error">
          {error}
        </Notice>
      )}
      {answer !== null && (
        <dl className="small decoded" data-testid="snowflake-decode-answer">
          <dt>Issued in the time unit from</dt>
          <dd className="mono" data-testid="snowflake-decode-time">
            {answer.timestamp.toISOString()}
          </dd>
          <dt>Region · worker · sequence</dt>
          <dd className="mono" data-testid="snowflake-decode-fields">
            {answer.region} · {answer.workerId} · {answer.sequence}
          </dd>
        </dl>
      )}
    </form>
  );
}

function IssuedBetween({ fleet }: { fleet: SnowflakeFleet }) {
  const [window, setWindow] = useState<TimeWindowText>({ from: '', to: '' });
  const [answer, setAnswer] = useState<{ low: string; high: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const read = readWindow(window);
    const [low, high] =
      typeof read === 'string'
        ? [null, null]
        : [snowflakeAt(fleet, read.fromMs).firstAtOrAfter, snowflakeAt(fleet, read.toMs).lastBefore];
    setAnswer(low === null || high === null ? null : { low: low.toString(), high: high.toString() });
    setError(
      typeof read === 'string'
        ? read
        : low === null || high === null
          ? 'The window lies outside the layout’s time: no ID carries it.'
          : null,
    );
  };
  return (
    <form onSubmit={onSubmit} noValidate data-testid="snowflake-between">
      <TimeWindowFields
        value={window}
        onChange={setWindow}
        labels={{ from: 'IDs issued from', to: 'until (not including)' }}
      />
      <div className="form-actions">
        <button type="submit">Find the IDs</button>
      </div>
      {error !== null && (
        <Notice kind="error" title="No bounds." testId="snowflake-between-error">
          {error}
        </Notice>
      )}
      {answer !== null && (
        <p className="small" data-testid="snowflake-between-answer">
          Every ID this region issued then is in{' '}
          <code className="mono" data-testid="snowflake-between-range">
            id BETWEEN {answer.low} AND {answer.high}
          </code>
        </p>
      )}
    </form>
  );
}
