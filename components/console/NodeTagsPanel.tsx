'use client';

import Link from 'next/link';
import { useState } from 'react';
import { Notice } from '../ui/Notice';
import { NodeBufferCells, NodeBufferHeaders } from './FleetCells';
import { showInt, runwayLow } from './display';
import { useFleet, useNodeTags } from './queries';

const PAGE = 20;

/** One node's tags (a node may hold 10,000): a searchable page of them, shortest runway first. */
export function NodeTagsPanel({ nodeId }: { nodeId: string }) {
  const [q, setQ] = useState('');
  const [limit, setLimit] = useState(PAGE);
  const tags = useNodeTags(nodeId, q.trim(), limit);
  const warn = useFleet().data?.runwayWarnSeconds;
  return (
    <div className="node-tags" data-testid={`node-tags-${nodeId}`}>
      <div className="inline-form">
        <div className="field">
          <label htmlFor={`node-tags-q-${nodeId}`}>Find a tag on {nodeId}</label>
          <input
            id={`node-tags-q-${nodeId}`}
            type="search"
            value={q}
            onChange={(e) => {
              setQ(e.target.value);
              setLimit(PAGE);
            }}
          />
        </div>
      </div>
      {tags.isError && (
        <Notice kind="error" title="This node's tags cannot be loaded.">
          {tags.error.message}
        </Notice>
      )}
      {tags.data !== undefined &&
        (tags.data.total === 0 ? (
          <p className="muted">{q.trim() === '' ? 'This node holds no buffer.' : 'No tag on this node matches.'}</p>
        ) : (
          <>
            <table className="load-table" aria-label={`Tags on ${nodeId}`}>
              <thead>
                <tr>
                  <th scope="col">Tag</th>
                  <NodeBufferHeaders buffered="IDs buffered" />
                </tr>
              </thead>
              <tbody>
                {tags.data.tags.map((t) => (
                  <tr key={t.bizTag} data-testid={`node-tag-row-${t.bizTag}`}>
                    <th scope="row">
                      <Link href={`/tags/${encodeURIComponent(t.bizTag)}`} className="tag-link">
                        {t.bizTag}
                      </Link>
                    </th>
                    <td className="num" data-label="IDs buffered">
                      {showInt(t.buffered)}
                    </td>
                    <NodeBufferCells
                      step={t.step}
                      ratePerSec={t.ratePerSec}
                      next={t.next}
                      runwaySeconds={t.runwaySeconds}
                      low={runwayLow(t.runwaySeconds, warn)}
                    />
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="muted small">
              {showInt(tags.data.tags.length)} of {showInt(tags.data.total)} tags, shortest runway first.{' '}
              {tags.data.tags.length < tags.data.total && limit < 500 && (
                <button
                  type="button"
                  className="button-quiet small"
                  onClick={() => setLimit((l) => Math.min(500, l * 5))}
                >
                  Show more
                </button>
              )}
            </p>
          </>
        ))}
    </div>
  );
}
