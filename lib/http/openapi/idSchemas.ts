/** The ID routes' and health's answers, and the error every route answers with (components.ts gathers them). */
import { ERROR_STATUS } from '../../errors';
import type { HealthView } from '../../admin/views';
import type { ClientOrdering } from '../../ordered/orderedTags';
import type { SnowflakeStatus } from '../../snowflake/node';
import type { HostHealth } from '../../store/leafStore';
import {
  type JsonSchema,
  arrayOf,
  bool,
  decimalId,
  idText,
  int,
  isoTime,
  mapOf,
  nullable,
  num,
  object,
  oneOfValues,
  shape,
  str,
} from './jsonSchema';

const tag = str;

export const snowflakeStatus = shape<SnowflakeStatus>()({
  state: oneOfValues(['starting', 'fencing', 'ready', 'unrenewed', 'lost', 'stopped']),
  nodeId: str,
  workerId: nullable(int),
  workerIds: str,
  epoch: isoTime,
  layout: str,
  layoutBits: str,
  region: int,
  endsAt: nullable(isoTime),
  yearsLeft: num,
  epochPreset: nullable(oneOfValues(['leaf'])),
  minId: nullable(decimalId),
  lastTimestamp: nullable(isoTime),
  leaseRenewedAt: nullable(isoTime),
  fenceUntil: nullable(isoTime),
  lastError: nullable(str),
});
export const snowflakeOff = object({ state: oneOfValues(['off']) });

const host = shape<HostHealth>()(
  {
    host: str,
    reachable: bool,
    latencyMs: num,
    galera: object({ state: str, clusterSize: int, ready: bool, clusterStatus: str }),
    postgres: object(
      { role: oneOfValues(['primary', 'sync standby', 'async standby', 'standby']), synchronous: bool },
      ['synchronous'],
    ),
    error: str,
  },
  ['galera', 'postgres', 'error'],
);

export const ID_SCHEMAS: Record<string, JsonSchema> = {
  Error: object({
    error: object(
      {
        code: oneOfValues(Object.keys(ERROR_STATUS)),
        message: str,
        fields: mapOf(str),
      },
      ['fields'],
    ),
  }),
  SegmentId: object({ tag, id: idText }),
  // validMs on an opaque tag's batch: @leaf-ts/client holds it like a lease (docs/design.md#ids-that-tell-when).
  SegmentIds: object({ tag, ids: arrayOf(idText), validMs: int }, ['validMs']),
  RangeLease: object(
    {
      tag,
      count: int,
      stride: int,
      validMs: int,
      ranges: arrayOf(object({ start: decimalId, end: decimalId })),
    },
    ['stride', 'validMs'],
  ),
  ClientOrdering: shape<ClientOrdering>()({ version: int, strict: arrayOf(tag), vouchMs: int, pollMs: int }),
  ClientGone: object({ client: str, gone: oneOfValues([true]) }),
  FormattedId: object({ tag, id: str }),
  FormattedIds: object({ tag, ids: arrayOf(str) }),
  SnowflakeId: object({ id: decimalId }),
  SnowflakeIds: object({ ids: arrayOf(decimalId) }),
  SnowflakeDecoded: object({
    id: decimalId,
    layout: str,
    layoutBits: str,
    regions: int,
    timestamp: isoTime,
    timestampMs: int,
    region: int,
    workerId: int,
    sequence: int,
  }),
  SnowflakeAt: object({
    time: isoTime,
    timeMs: int,
    layout: str,
    epoch: isoTime,
    regions: int,
    region: int,
    unitMs: int,
    firstAtOrAfter: nullable(decimalId),
    lastBefore: nullable(decimalId),
  }),
  Health: shape<HealthView>()({
    status: oneOfValues(['ok', 'degraded']),
    store: object(
      {
        dialect: oneOfValues(['sqlite', 'mysql', 'postgres']),
        reachable: bool,
        latencyMs: num,
        error: str,
        hosts: arrayOf(host),
      },
      ['error', 'hosts'],
    ),
    tags: object({ known: int, loaded: int }),
    lastRefreshAt: nullable(isoTime),
    lastRefreshError: nullable(str),
    snowflake: { anyOf: [snowflakeStatus, snowflakeOff] },
    region: nullable(object({ region: int, regions: int, database: str })),
  }),
};
