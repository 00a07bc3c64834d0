import { describe, expect, it } from 'vitest';
import type { IdRuntime } from '@/lib/http/issue';
import { decodeSnowflake } from '@/lib/http/snowflakeTime';
import { DEFAULT_EPOCH_MS, MAX_SAFE_ID, SnowflakeLayout } from '@/lib/snowflake/layout';
import { SnowflakeNode } from '@/lib/snowflake/node';
import { FakeClock, FakeWorkerStore } from '../support/fakes';

/** The decode route's answer under one layout, from a node that is never started (decoding needs no lease). */
async function decode(layout: SnowflakeLayout, raw: string) {
  const snowflake = new SnowflakeNode({
    store: new FakeWorkerStore(new FakeClock()),
    nodeId: 'n',
    epochMs: DEFAULT_EPOCH_MS,
    layout,
  });
  const runtime = () => ({ snowflake }) as unknown as IdRuntime;
  try {
    const answer = await decodeSnowflake(runtime, raw);
    return { status: answer.status, body: JSON.parse(answer.body) as Record<string, unknown> };
  } catch (error) {
    return { status: 'thrown', body: { code: (error as { code?: string }).code } };
  }
}

describe('GET /api/id/snowflake/{id} follows the node layout', () => {
  it('js-safe: its largest ID decodes, one above it is refused as invalid_id', async () => {
    const safe = SnowflakeLayout.preset('js-safe');
    const last = await decode(safe, MAX_SAFE_ID.toString());
    expect(last).toMatchObject({
      status: 200,
      body: {
        layout: 'js-safe',
        workerId: 127,
        sequence: 2047,
        region: 0,
        timestampMs: DEFAULT_EPOCH_MS + safe.maxTime * 100,
      },
    });
    expect(await decode(safe, (MAX_SAFE_ID + 1n).toString())).toEqual({
      status: 'thrown',
      body: { code: 'invalid_id' },
    });
  });

  it('a custom layout with a region names the region', async () => {
    const layout = SnowflakeLayout.parse('time=40,region=2,worker=9,sequence=12') as SnowflakeLayout;
    const id = layout.compose(1_000, 3, 511, 7);
    expect(await decode(layout, id.toString())).toMatchObject({
      status: 200,
      body: { layout: 'time=40,region=2,worker=9,sequence=12,unit=1ms', region: 3, workerId: 511, sequence: 7 },
    });
  });

  it('an ID whose time is past the last date there is answers invalid_id, not a 500', async () => {
    const layout = SnowflakeLayout.parse('time=60,worker=1,sequence=2,unit=1s') as SnowflakeLayout;
    expect(await decode(layout, layout.maxId.toString())).toEqual({ status: 'thrown', body: { code: 'invalid_id' } });
  });
});
