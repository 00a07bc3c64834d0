import type { AuditRecord } from '../admin/auditStore';
import type { StoredToken } from '../auth/tokenStore';
import type { NodeRow } from '../fleet/nodeStore';
import type { FormatPeriodRow } from '../format/formatStore';
import type { TagRow } from '../segment/tagStore';
import type { WorkerRow } from '../snowflake/workerStore';
import { auditRecord } from './auditRecords';
import { exactId } from './exactId';
import { type FormatStored, periodRow } from './formatRows';
import { storedToken } from './tokenRows';

/** Rows as mysql2 and pg answer them (by column name, BIGINTs as decimal strings), and what they become. */

export interface RawTokenRow {
  id: string;
  name: string;
  token_hash: string;
  tags: string;
  created_at: string | number;
  created_by: string;
  revoked_at: string | number | null;
}

export function tokenFromRaw(r: RawTokenRow): StoredToken {
  return storedToken({
    id: r.id,
    name: r.name,
    tokenHash: r.token_hash,
    tags: r.tags,
    createdAt: r.created_at,
    createdBy: r.created_by,
    revokedAt: r.revoked_at,
  });
}

export interface RawAuditRow {
  id: string;
  at: string;
  action: string;
  biz_tag: string | null;
  actor: string;
  address: string;
  node_id: string;
  before: string | null;
  after: string | null;
}

export function auditFromRaw(r: RawAuditRow): AuditRecord {
  return auditRecord({ ...r, bizTag: r.biz_tag, nodeId: r.node_id });
}

export interface RawFormatRow {
  biz_tag: string;
  pattern: string;
  reset_period: string;
  time_zone: string;
  step: number;
  description: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export function formatFromRaw(r: RawFormatRow): FormatStored {
  return {
    bizTag: r.biz_tag,
    pattern: r.pattern,
    resetPeriod: r.reset_period,
    timeZone: r.time_zone,
    step: r.step,
    description: r.description,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deletedAt: r.deleted_at,
  };
}

export interface RawPeriodRow {
  biz_tag: string;
  period_key: string;
  max_id: string;
  step: number;
  update_time: string;
}

export function periodFromRaw(r: RawPeriodRow): FormatPeriodRow {
  return periodRow({
    bizTag: r.biz_tag,
    periodKey: r.period_key,
    maxId: r.max_id,
    step: r.step,
    updateTime: r.update_time,
  });
}

export interface RawNodeRow {
  node_id: string;
  instance_id: string;
  address: string;
  version: string;
  started_at: string;
  heartbeat_at: string;
  state: string;
  snapshot: string;
}

/** leaf_node's columns but the snapshot: what a list without snapshots reads. */
export const NODE_COLUMNS = ['node_id', 'instance_id', 'address', 'version', 'started_at', 'heartbeat_at', 'state'];

export function nodeFromRaw(r: RawNodeRow): NodeRow {
  return {
    nodeId: r.node_id,
    instanceId: r.instance_id,
    address: r.address,
    version: r.version,
    // ms timestamps: far below 2^53, so Number is exact.
    startedAt: Number(r.started_at),
    heartbeatAt: Number(r.heartbeat_at),
    state: r.state,
    snapshot: r.snapshot,
  };
}

export interface RawWorkerRow {
  worker_id: number;
  node_id: string;
  instance_id: string;
  lease_expires_at: string;
  last_timestamp: string;
  heartbeat_at: string;
}

export function workerFromRaw(r: RawWorkerRow): WorkerRow {
  return {
    workerId: r.worker_id,
    nodeId: r.node_id,
    instanceId: r.instance_id,
    // ms timestamps: far below 2^53, so Number is exact.
    leaseExpiresAt: Number(r.lease_expires_at),
    lastTimestamp: Number(r.last_timestamp),
    heartbeatAt: Number(r.heartbeat_at),
  };
}

export interface RawAllocRow {
  biz_tag: string;
  max_id: string;
  step: number;
  description: string | null;
  update_time: Date;
}

export function tagFromRaw(r: RawAllocRow): TagRow {
  return {
    bizTag: r.biz_tag,
    maxId: exactId(r.max_id, r.biz_tag),
    step: r.step,
    description: r.description,
    updateTime: r.update_time,
  };
}
