/** The admin answers' schemas (idSchemas.ts has the ID routes'), each checked against its type (jsonSchema.ts `shape`). */
import type { SessionView } from '../../auth/consoleSessions';
import { AUDIT_ACTIONS } from '../../audit';
import type {
  AuditEntryView,
  AuditPage,
  CreatedToken,
  EngineView,
  FleetSummary,
  NodeBufferView,
  FleetNodeHistory,
  FleetRatePoint,
  FleetTagHistory,
  NodeTagHistory,
  NodeTagRow,
  NodeTagsPage,
  PendingSegmentView,
  SegmentView,
  StepPoint,
  TagDetail,
  TagFleetDetail,
  TagListPage,
  TagView,
} from '../../admin/views';
import type { FormatDetail, FormatPeriodView, FormatView } from '../../admin/formatViews';
import type { TokenRow } from '../../auth/tokenStore';
import type { FleetTagView, NodeSnowflakeState, NodeTagState } from '../../fleet/types';
import type { NodeAnswer } from '../../fleet/nodeView';
import { RESET_PERIODS } from '../../format/period';
import type { RatePoint } from '../../metrics/rateTracker';
import type { SegmentLoadRecord } from '../../segment/buffer';
import { SEMANTICS } from '../../segment/semantics';
import { ENCODINGS } from '../../opaque/encoding';
import { ID_FORMS } from '../../opaque/shortForms';
import type { DecodedId } from '../../admin/tagDecode';
import type { IssuedAnswer } from '../../admin/tagIssued';
import type { ClaimWindow, IssuedRange } from '../../claims/issued';
import { ORDERINGS } from '../../ordered/orderStore';
import type { OwnerView, ParticipantView, PendingView } from '../../admin/orderViews';
import type { SemanticsSettings, SemanticsSwitch } from '../../segment/semanticsStore';
import type { WorkerRow } from '../../snowflake/workerStore';
import { NEXT_STATES, NODE_STATES } from '../../fleet/types';
import { ID_SCHEMAS, snowflakeOff, snowflakeStatus } from './idSchemas';
import {
  type JsonSchema,
  arrayOf,
  bool,
  decimalId,
  int,
  isoTime,
  mapOf,
  nullable,
  num,
  object,
  oneOfValues,
  ref,
  shape,
  str,
} from './jsonSchema';

const semantics = oneOfValues(SEMANTICS);
const nodeState = oneOfValues(NODE_STATES);
const nextState = oneOfValues(NEXT_STATES);
const tag = str;

const ratePoint = shape<RatePoint>()({ t: int, ids: int });
const issuedRangeSchema = shape<IssuedRange>()({ first: decimalId, last: decimalId, stride: int });
const claimWindowSchema = shape<ClaimWindow>()({
  first: decimalId,
  last: decimalId,
  stride: int,
  kind: oneOfValues(['segment', 'lease']),
  claimer: str,
  region: int,
  claimedAt: isoTime,
  servedFrom: isoTime,
  servedUntil: nullable(isoTime),
});
const segment = shape<SegmentView>()({
  start: decimalId,
  max: decimalId,
  next: decimalId,
  step: int,
  remaining: int,
});
const pendingSegment = shape<PendingSegmentView>()({ start: decimalId, max: decimalId, step: int });
const engine = shape<EngineView>()({
  minStep: int,
  step: int,
  current: nullable(segment),
  pending: nullable(pendingSegment),
  loading: bool,
  lastLoadAt: nullable(int),
  lastError: nullable(str),
  issuedTotal: int,
  waits: int,
  failedRequests: int,
  ratePerSec: num,
});
const fleetTag = shape<FleetTagView>()({
  nodesServing: int,
  ratePerSec: num,
  buffered: int,
  runwaySeconds: nullable(num),
});

const owner = shape<OwnerView>()({ nodeId: str, address: str, epoch: int, leaseAgeMs: int, leaseLeftMs: int });
const participant = shape<ParticipantView>()({
  instanceId: str,
  kind: oneOfValues(['node', 'embedded']),
  label: str,
  host: str,
  ackedVersion: int,
  startedAt: isoTime,
  lastSeenAgoMs: int,
});
const pendingChange = shape<PendingView>()({ since: isoTime, version: int, waitingFor: arrayOf(participant) });
const tagView = shape<TagView>()(
  {
    bizTag: tag,
    maxId: decimalId,
    step: int,
    description: nullable(str),
    semantics,
    encoding: oneOfValues(ENCODINGS),
    keyId: nullable(str),
    updateTime: isoTime,
    ordering: oneOfValues(ORDERINGS),
    strictSince: nullable(isoTime),
    pending: nullable(pendingChange),
    owner: nullable(owner),
    engine: nullable(engine),
    fleet: nullable(fleetTag),
  },
  ['fleet'],
);

const nodeBuffer = shape<NodeBufferView>()({
  nodeId: str,
  address: str,
  state: nodeState,
  buffered: int,
  current: nullable(int),
  step: int,
  ratePerSec: num,
  next: nextState,
  runwaySeconds: nullable(num),
});
const tagFleet = shape<TagFleetDetail>()({
  nodes: arrayOf(nodeBuffer),
  runwayWarnSeconds: num,
});
const stepPoint = shape<StepPoint>()({ t: int, step: int });
const load = shape<SegmentLoadRecord>()(
  { at: int, durationMs: num, step: int, purpose: oneOfValues(['segment', 'lease']), ok: bool, error: str },
  ['error'],
);
const nodeTagHistory = shape<NodeTagHistory>()({
  nodeId: str,
  instanceId: str,
  startedAt: int,
  bucketMs: int,
  rate: arrayOf(ratePoint),
  loads: arrayOf(load),
});
const fleetNodeHistory = shape<FleetNodeHistory>()({
  nodeId: str,
  state: nodeState,
  history: nullable(nodeTagHistory),
  missing: nullable(str),
});
const fleetRatePoint = shape<FleetRatePoint>()({ t: int, ids: nullable(int) });

const nodeTag = shape<NodeTagState & { runwaySeconds: number | null }>()({
  buffered: int,
  step: int,
  ratePerSec: num,
  next: nextState,
  issued: int,
  current: nullable(int),
  runwaySeconds: nullable(num),
});
const nodeSnowflake = shape<NodeSnowflakeState>()(
  { state: str, workerId: nullable(int), leaseExpiresAt: nullable(isoTime), workerIds: str },
  ['workerIds'],
);

const token = shape<TokenRow>()({
  id: str,
  name: str,
  tags: arrayOf(tag),
  createdAt: int,
  createdBy: str,
  revokedAt: nullable(int),
});
/** A live console session (GET /api/auth/sessions). */
type LiveSession = SessionView & { current: boolean };
const liveSession = shape<LiveSession>()({
  id: str,
  createdAt: int,
  lastSeenAt: int,
  expiresAt: int,
  idleExpiresAt: int,
  address: str,
  userAgent: str,
  current: bool,
});
const format = shape<FormatView>()({
  bizTag: tag,
  pattern: str,
  resetPeriod: oneOfValues(RESET_PERIODS),
  timeZone: str,
  step: int,
  description: nullable(str),
  createdAt: isoTime,
  updatedAt: isoTime,
  currentPeriod: str,
  currentCount: int,
});
const formatPeriod = shape<FormatPeriodView>()({ periodKey: str, maxId: int, step: int, updatedAt: isoTime });
const worker = shape<WorkerRow>()({
  workerId: int,
  nodeId: str,
  instanceId: str,
  leaseExpiresAt: int,
  lastTimestamp: int,
  heartbeatAt: int,
});
const settingsSchema = shape<SemanticsSettings>()({ default: semantics, tags: mapOf(semantics) });
const semanticsSwitch = shape<SemanticsSwitch>()({ before: semantics, after: semantics, bumped: int });

/** Every component schema of the document, by name. */
export const SCHEMAS: Record<string, JsonSchema> = {
  ...ID_SCHEMAS,
  Tag: tagView,
  TagList: shape<TagListPage>()({
    tags: arrayOf(ref('Tag')),
    total: int,
    offset: int,
    limit: int,
    totals: object({ tags: int, loaded: int, ratePerSec: num }),
  }),
  TagDetail: shape<TagDetail>()(
    {
      tag: ref('Tag'),
      history: object({ rate: arrayOf(ratePoint), steps: arrayOf(stepPoint), loads: arrayOf(load) }),
      fleet: nullable(tagFleet),
    },
    ['fleet'],
  ),
  TagHistory: nodeTagHistory,
  FleetTagHistory: shape<FleetTagHistory>()({
    bucketMs: int,
    nodes: arrayOf(fleetNodeHistory),
    rate: arrayOf(fleetRatePoint),
  }),
  TagAnswer: object({ tag: ref('Tag') }),
  DecodedId: shape<DecodedId>()({
    tag,
    id: str,
    format: oneOfValues(ID_FORMS),
    value: decimalId,
    forms: object({ decimal: decimalId, base62: str, base32: str }),
    encoding: oneOfValues(ENCODINGS),
    keyId: nullable(str),
    sequence: decimalId,
    region: nullable(int),
    position: nullable(decimalId),
    claimed: nullable(bool),
    maxId: decimalId,
    issued: arrayOf(claimWindowSchema),
  }),
  Issued: shape<IssuedAnswer>()({
    tag,
    encoding: oneOfValues(ENCODINGS),
    from: isoTime,
    to: isoTime,
    ranges: arrayOf(issuedRangeSchema),
    ids: decimalId,
    claims: int,
    logSince: nullable(isoTime),
    retentionDays: int,
  }),
  TagDeleted: object({ deleted: oneOfValues([true]), maxId: decimalId }),
  Semantics: settingsSchema,
  SemanticsSwitched: {
    ...settingsSchema,
    properties: { ...(settingsSchema.properties as object), switched: semanticsSwitch },
    required: [...(settingsSchema.required as string[]), 'switched'],
  },
  Workers: object({
    self: { anyOf: [snowflakeStatus, snowflakeOff] },
    workerIds: str,
    workers: arrayOf(worker),
  }),
  AuditPage: shape<AuditPage>()({
    entries: arrayOf(
      shape<AuditEntryView>()({
        id: int,
        at: isoTime,
        action: oneOfValues(AUDIT_ACTIONS),
        bizTag: nullable(tag),
        actor: str,
        address: str,
        nodeId: str,
        before: nullable({ type: 'object' }),
        after: nullable({ type: 'object' }),
      }),
    ),
    nextBefore: nullable(int),
  }),
  Nodes: object({
    nodes: arrayOf(
      shape<NodeAnswer>()(
        {
          nodeId: str,
          instanceId: str,
          address: str,
          version: str,
          state: nodeState,
          startedAt: isoTime,
          lastHeartbeat: isoTime,
          snowflake: nodeSnowflake,
          tags: mapOf(nodeTag),
          tagsHeld: int,
          idsBuffered: int,
        },
        ['tags'],
      ),
    ),
  }),
  NodeTags: shape<NodeTagsPage>()({
    nodeId: str,
    state: nodeState,
    total: int,
    tags: arrayOf(
      shape<NodeTagRow>()({
        bizTag: tag,
        buffered: int,
        step: int,
        ratePerSec: num,
        next: nextState,
        runwaySeconds: nullable(num),
      }),
    ),
  }),
  Fleet: shape<FleetSummary>()({
    nodes: object({ up: int, gone: int, stopped: int }),
    ratePerSec: num,
    idsBuffered: int,
    shortestRunway: nullable(object({ bizTag: tag, nodeId: str, seconds: num })),
    tagsBelowWarn: int,
    runwayWarnSeconds: num,
  }),
  Tokens: object({ tokens: arrayOf(token) }),
  Participants: object({ version: int, participants: arrayOf(participant) }),
  ParticipantForgotten: object({ forgotten: str }),
  TokenAnswer: object({ token }),
  TokenCreated: shape<CreatedToken>()({ token, secret: { type: 'string', pattern: '^lts_[A-Za-z0-9_-]{43}$' } }),
  Formats: object({ formats: arrayOf(format) }),
  FormatDetail: shape<FormatDetail>()({ format, periods: arrayOf(formatPeriod) }),
  FormatDeleted: object({ deleted: tag }),
  Ok: object({ ok: oneOfValues([true]) }),
  Session: object({ authenticated: bool }),
  Sessions: object({ sessions: arrayOf(liveSession) }),
  SessionEnded: object({ ended: str }),
  SessionsEnded: object({ ended: int }),
};
