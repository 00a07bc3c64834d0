import { describe, expect, it } from 'vitest';
import { loadConfig } from '@/lib/config';
import { batch, lease, single } from '@/lib/http/idBodies';
import { MAX_ID } from '@/lib/segment/id';
import { appendRun, newRanges } from '@/lib/segment/idRanges';
import { regionId, regionStride } from '@/lib/segment/regionIds';
import { SnowflakeLayout } from '@/lib/snowflake/layout';

const NOW = Date.parse('2026-12-06T00:00:00Z');
const S = { regions: 3, region: 2 };

describe('segment positions to a region’s IDs', () => {
  it('n × R + region, a number while safe, an exact bigint above, refused past 2^63 − 1', () => {
    expect(regionStride(0, 1)).toBeNull();
    expect(regionId(7, S)).toBe(23);
    expect(regionId(Number.MAX_SAFE_INTEGER, S)).toBe(BigInt(Number.MAX_SAFE_INTEGER) * 3n + 2n);
    const last = (MAX_ID - 2n) / 3n; // the last position whose ID fits
    expect(regionId(last, S)).toBe(last * 3n + 2n);
    expect(() => regionId(last + 1n, S)).toThrow(expect.objectContaining({ code: 'id_space_exhausted' }));
  });

  it('single, batch and lease answers carry it; the lease says its stride', () => {
    const ranges = newRanges();
    appendRun(ranges, 10, 12, null);
    appendRun(ranges, 20, 20, null);
    expect(JSON.parse(single('t', 10, false, S).body)).toEqual({ tag: 't', id: '32' });
    expect(single('t', 10, true, S).body).toBe('32');
    expect(JSON.parse(batch('t', ranges, S).body)).toEqual({ tag: 't', ids: ['32', '35', '38', '62'] });
    expect(JSON.parse(lease('t', ranges, S).body)).toEqual({
      tag: 't',
      count: 4,
      stride: 3,
      ranges: [
        { start: '32', end: '38' },
        { start: '62', end: '62' },
      ],
    });
    // Regions off: the answers as they always were.
    expect(JSON.parse(lease('t', ranges, null).body)).toEqual({
      tag: 't',
      count: 4,
      ranges: [
        { start: '10', end: '12' },
        { start: '20', end: '20' },
      ],
    });
  });
});

describe('snowflake layouts with regions', () => {
  it('a preset gives the top worker bits to the region; a layout with region bits keeps them', () => {
    const leaf = SnowflakeLayout.LEAF.forRegions(3) as SnowflakeLayout;
    expect(leaf.bits).toEqual({ time: 41, region: 2, worker: 8, sequence: 12 });
    expect(leaf.compose(0, 1, 0, 0)).toBe(SnowflakeLayout.LEAF.compose(0, 0, 256, 0)); // Twitter's datacenter bits
    const sony = SnowflakeLayout.preset('sonyflake').forRegions(2) as SnowflakeLayout;
    expect(sony.compose(0, 1, 0, 0)).toBe(1n << 15n); // the machine id's top bit
    const custom = SnowflakeLayout.parse('time=40,region=3,worker=8,sequence=12') as SnowflakeLayout;
    expect(custom.forRegions(8)).toBe(custom);
    expect(custom.forRegions(9)).toEqual({ problem: 'its 3 region bits hold 8 regions, not 9' });
    expect(SnowflakeLayout.preset('js-safe').forRegions(1024)).toEqual({
      problem: 'its 7 worker bits leave none once 10 go to 1024 regions',
    });
  });

  it('config: region below the count, the layout able to carry it, worker ids within what is left', () => {
    const c = loadConfig({ LEAF_REGIONS: '4', LEAF_REGION: '3' }, NOW);
    expect(c.region).toEqual({ region: 3, regions: 4 });
    expect(c.snowflake.layout.bits).toMatchObject({ region: 2, worker: 8 });
    expect(c.snowflake.workerIds.text).toBe('0-255');
    expect(() => loadConfig({ LEAF_REGIONS: '2', LEAF_REGION: '2' }, NOW)).toThrow(
      /^LEAF_REGION must be below LEAF_REGIONS \(2\): regions are numbered from 0 \(got "2"\)$/,
    );
    expect(() => loadConfig({ LEAF_REGIONS: '2', LEAF_WORKER_IDS: '600' }, NOW)).toThrow(/600 is above 511/);
    expect(() => loadConfig({ LEAF_REGIONS: '1024', LEAF_SNOWFLAKE_LAYOUT: 'js-safe' }, NOW)).toThrow(
      /LEAF_SNOWFLAKE_LAYOUT js-safe cannot carry 1024 regions/,
    );
    expect(() => loadConfig({ LEAF_REGIONS: '0' }, NOW)).toThrow(/LEAF_REGIONS must be an integer from 1 to 1024/);
  });
});

describe('an owner’s runs read back as positions', () => {
  it('IDs of this region to positions; IDs of another numbering refused', async () => {
    const { positionRuns } = await import('@/lib/segment/regionIds');
    expect(positionRuns([{ start: '32', end: '38' }], S)).toEqual([{ start: '10', end: '12' }]);
    expect(positionRuns([{ start: '7', end: '9' }], null)).toEqual([{ start: '7', end: '9' }]);
    expect(() => positionRuns([{ start: '31', end: '37' }], S)).toThrow(/not of region 2 of 3/);
  });
});
