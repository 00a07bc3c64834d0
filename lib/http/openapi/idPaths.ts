/** The ID routes and health in the API description (document.ts). */
import { MAX_COUNT, MAX_LEASE_COUNT } from '../../bizTag';
import { ID_TEXT_PATTERN, ref } from './jsonSchema';
import {
  ID_ERRORS,
  type Operation,
  answer,
  countParam,
  errors,
  formatParam,
  idSecurity,
  plain,
  tagParam,
} from './parts';

export const ID_PATHS: Record<string, Record<string, Operation>> = {
  '/api/id/segment/{tag}': {
    get: {
      summary:
        'Segment IDs: one, or `count` in increasing order (an opaque tag: each ID permuted under the key, in no order)',
      security: idSecurity,
      parameters: [tagParam(), countParam(MAX_COUNT), formatParam()],
      responses: {
        '200': answer('the IDs', { oneOf: [ref('SegmentId'), ref('SegmentIds')] }),
        ...ID_ERRORS,
      },
    },
  },
  '/api/id/segment/{tag}/range': {
    get: {
      summary:
        'A range lease: exactly `count` IDs as inclusive runs, never served by any node again. With regions (LEAF_REGIONS > 1) the answer carries `stride`: a run holds start, start + stride, … end',
      security: idSecurity,
      parameters: [tagParam(), countParam(MAX_LEASE_COUNT, true)],
      // 409 strict_tag_range: a strict tag's IDs come only from its owner, one request at a time; 409
      // opaque_tag_range: an opaque tag's IDs form no runs.
      responses: { '200': answer('the lease', ref('RangeLease')), ...ID_ERRORS, ...errors(409) },
    },
  },
  '/api/id/owner/{tag}': {
    get: {
      summary:
        "A strict tag's IDs from this node only if it owns the tag (else 503 not_owner, never relayed); any other tag as /api/id/segment/{tag}",
      security: idSecurity,
      parameters: [tagParam(), countParam(MAX_COUNT), formatParam()],
      responses: {
        '200': answer('the IDs', { oneOf: [ref('SegmentId'), ref('SegmentIds')] }),
        ...ID_ERRORS,
      },
    },
  },
  '/api/id/owner/{tag}/runs': {
    get: {
      summary:
        "As /api/id/owner/{tag}, the IDs in the range lease's shape (with regions, runs stepped by `stride`): what a node relaying a strict tag asks its owner for",
      security: idSecurity,
      parameters: [tagParam(), countParam(MAX_COUNT)],
      // 409 opaque_tag_range: an opaque tag's IDs form no runs.
      responses: { '200': answer('the IDs as runs', ref('RangeLease')), ...ID_ERRORS, ...errors(409) },
    },
  },
  '/api/id/ordering': {
    get: {
      summary:
        "A @leaf-ts/client's vouch renewed: the ordering version this node applied and the strict tags the credential covers. The client hands out leased IDs only under a live vouch, and this node acknowledges a change only once the client reported its version (`acked`); `bye=1`: the client closed",
      security: idSecurity,
      parameters: [
        { name: 'client', in: 'query', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{8,64}$' } },
        { name: 'acked', in: 'query', required: false, schema: { type: 'integer', minimum: 0 } },
        { name: 'bye', in: 'query', required: false, schema: { type: 'string', enum: ['1'] } },
      ],
      responses: {
        '200': answer('the vouch', { oneOf: [ref('ClientOrdering'), ref('ClientGone')] }),
        ...ID_ERRORS,
      },
    },
  },
  '/api/id/formatted/{tag}': {
    get: {
      summary: 'Formatted IDs (pattern with date parts and a per-period sequence)',
      security: idSecurity,
      parameters: [tagParam(), countParam(MAX_COUNT)],
      responses: {
        '200': answer('the IDs', { oneOf: [ref('FormattedId'), ref('FormattedIds')] }),
        ...ID_ERRORS,
      },
    },
  },
  '/api/segment/get/{tag}': {
    get: {
      summary: "A segment ID as plain text, as Leaf's server answers",
      security: idSecurity,
      parameters: [tagParam(), formatParam()],
      responses: { '200': plain('the ID', ID_TEXT_PATTERN), ...ID_ERRORS },
    },
  },
  '/api/id/snowflake': {
    get: {
      summary: 'Snowflake IDs: one, or `count`',
      security: idSecurity,
      parameters: [countParam(MAX_COUNT)],
      responses: {
        '200': answer('the IDs', { oneOf: [ref('SnowflakeId'), ref('SnowflakeIds')] }),
        ...ID_ERRORS,
      },
    },
  },
  '/api/id/snowflake/at': {
    get: {
      summary:
        "The IDs at a moment: the smallest this region's nodes can issue at or after it, the largest they can have issued before it (by the nodes' clocks, exact to the layout's time unit)",
      security: idSecurity,
      parameters: [
        {
          name: 'time',
          in: 'query',
          required: true,
          description: 'ISO 8601 with its zone, or whole ms since 1970',
          schema: { type: 'string' },
        },
      ],
      responses: { '200': answer('the bounds', ref('SnowflakeAt')), ...ID_ERRORS },
    },
  },
  '/api/id/snowflake/{id}': {
    get: {
      summary: "Decodes a snowflake ID with this node's epoch",
      security: idSecurity,
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } }],
      responses: { '200': answer('its parts', ref('SnowflakeDecoded')), ...ID_ERRORS },
    },
  },
  '/api/snowflake/get/{key}': {
    get: {
      summary: 'A snowflake ID as plain text (Leaf-compatible; the key is validated like a tag and ignored)',
      security: idSecurity,
      parameters: [tagParam('key')],
      responses: { '200': plain('the ID'), ...ID_ERRORS },
    },
  },
  '/api/health': {
    get: {
      summary: 'The node, its store and each database host; 200 while the store is down (buffers still serve)',
      security: [{}],
      responses: {
        '200': answer('health', ref('Health')),
        ...errors(405, 408, 431),
        '503': answer('not_ready: the node is starting, or its store never opened', ref('Error')),
      },
    },
    head: {
      summary: 'The same answer without its body (load balancers and uptime checkers)',
      security: [{}],
      responses: {
        '200': { description: 'the node answers' },
        ...errors(405, 408, 431),
        '503': { description: 'not_ready: the node is starting, or its store never opened' },
      },
    },
  },
};
