'use client';

import { Fragment, useState } from 'react';
import { Notice } from '../ui/Notice';
import type { NodeAnswer } from './api';
import { FleetTotals } from './FleetTotals';
import { NODE_STATE_LABEL, showAgo, showInt, showUptime } from './display';
import { LiveStamp } from './LiveStamp';
import { NodeTagsPanel } from './NodeTagsPanel';
import { useNodes } from './queries';
import { RegionLine } from './RegionLine';
import { SnowflakeSettings } from './SnowflakeSettings';
import { SnowflakeTime } from './SnowflakeTime';

/** Every node of the fleet, as the registry's heartbeats report them; a row expands to the node's tags. */
export function NodesPage() {
  const nodes = useNodes();
  const [open, setOpen] = useState<string | null>(null);
  const now = nodes.dataUpdatedAt;
  return (
    <section aria-labelledby="nodes-title">
      <div className="section-head">
        <h1 id="nodes-title">Nodes</h1>
        <LiveStamp updatedAt={nodes.dataUpdatedAt} failing={nodes.isError} />
      </div>
      <FleetTotals />
      <RegionLine />
      <SnowflakeSettings />
      {nodes.isError && (
        <Notice
          kind="error"
          testId="nodes-error"
          title={
            nodes.data === undefined
              ? 'The nodes cannot be loaded.'
              : 'The server stopped answering; the rows below are from the last good answer.'
          }
        >
          {nodes.error.message}
        </Notice>
      )}
      {nodes.isPending && <p className="muted">Loading nodes…</p>}
      {nodes.data !== undefined && (
        <div className="table-wrap">
          <table className="tag-table node-table" aria-label="Nodes">
            <thead>
              <tr>
                <th scope="col">Node</th>
                <th scope="col">State</th>
                <th scope="col">Uptime</th>
                <th scope="col">Version</th>
                <th scope="col" className="num">
                  Worker id
                </th>
                <th scope="col">Lease expires</th>
                <th scope="col">Last heartbeat</th>
                <th scope="col" className="num">
                  Tags held
                </th>
                <th scope="col" className="num">
                  IDs buffered
                </th>
                <th scope="col">
                  <span className="sr-only">Tags</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {nodes.data.map((node) => (
                <Fragment key={node.nodeId}>
                  <NodeTableRow
                    node={node}
                    now={now}
                    open={open === node.nodeId}
                    onToggle={() => setOpen((v) => (v === node.nodeId ? null : node.nodeId))}
                  />
                  {open === node.nodeId && (
                    <tr className="node-tags-row">
                      <td colSpan={10}>
                        <NodeTagsPanel nodeId={node.nodeId} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {nodes.data?.length === 0 && (
        <p className="muted" data-testid="nodes-empty">
          No node has sent a heartbeat yet.
        </p>
      )}
      <SnowflakeTime />
    </section>
  );
}

function NodeTableRow({
  node,
  now,
  open,
  onToggle,
}: {
  node: NodeAnswer;
  now: number;
  open: boolean;
  onToggle: () => void;
}) {
  const lease = node.snowflake.leaseExpiresAt === null ? null : Date.parse(node.snowflake.leaseExpiresAt);
  return (
    <tr data-testid={`node-row-${node.nodeId}`} data-state={node.state}>
      <th scope="row" data-label="Node">
        <span className="mono">{node.nodeId}</span>
        <div className="muted small mono">{node.address}</div>
      </th>
      <td data-label="State">
        <span className={`state node-state-${node.state}`} data-testid="node-state">
          {NODE_STATE_LABEL[node.state]}
        </span>
      </td>
      <td data-label="Uptime">{node.state === 'up' ? showUptime(now - Date.parse(node.startedAt)) : '—'}</td>
      <td data-label="Version" className="mono">
        {node.version}
      </td>
      <td className="num" data-label="Worker id">
        <span data-testid="node-worker-id">
          {node.snowflake.workerId ?? <span className="muted">{node.snowflake.state === 'off' ? 'off' : '—'}</span>}
        </span>
        {node.snowflake.workerIds !== undefined && (
          <div
            className="muted small mono"
            data-testid="node-worker-ids"
            title="LEAF_WORKER_IDS: the only worker ids this node leases"
          >
            of {node.snowflake.workerIds.replaceAll(',', ',\u200b')}
          </div>
        )}
      </td>
      <td data-label="Lease expires">
        {lease === null ? (
          <span className="muted">—</span>
        ) : lease >= now ? (
          `in ${showUptime(lease - now)}`
        ) : (
          `expired ${showAgo(lease, now)}`
        )}
      </td>
      <td data-label="Last heartbeat" data-testid="node-heartbeat">
        {showAgo(Date.parse(node.lastHeartbeat), now)}
      </td>
      <td className="num" data-label="Tags held" data-testid="node-tags-held">
        {showInt(node.tagsHeld)}
      </td>
      <td className="num" data-label="IDs buffered" data-testid="node-ids-buffered">
        {showInt(node.idsBuffered)}
      </td>
      <td data-label="Tags">
        <button
          type="button"
          className="button-quiet small"
          aria-expanded={open}
          data-testid="node-expand"
          onClick={onToggle}
        >
          {open ? 'Hide tags' : 'Tags'}
        </button>
      </td>
    </tr>
  );
}
