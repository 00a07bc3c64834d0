/** The admin, auth, metrics and description routes in the API description (document.ts). */
import type { z } from 'zod';
import { createFormatSchema, updateFormatSchema } from '../../admin/formatSchema';
import {
  createTagSchema,
  createTokenSchema,
  deleteTagSchema,
  fleetSemanticsSchema,
  loginSchema,
  updateTagSchema,
} from '../../admin/schema';
import { int, ref, str } from './jsonSchema';
import {
  ADMIN_READ_ERRORS,
  ADMIN_WRITE_ERRORS,
  type Operation,
  adminSecurity,
  answer,
  body,
  errors,
  formatParam,
  json,
  queryParam,
  tagParam,
} from './parts';

const read = (summary: string, schema: string, parameters: unknown[] = []): Operation => ({
  summary,
  security: adminSecurity,
  parameters,
  responses: { '200': answer(schema, ref(schema)), ...ADMIN_READ_ERRORS },
});
const write = (summary: string, request: z.ZodType | null, status: number, schema: string): Operation => ({
  summary,
  security: adminSecurity,
  ...(request === null ? {} : { requestBody: body(request) }),
  responses: { [String(status)]: answer(schema, ref(schema)), ...ADMIN_WRITE_ERRORS },
});
const page = [queryParam('offset', int), queryParam('limit', int)];

export const ADMIN_PATHS: Record<string, Record<string, Operation>> = {
  '/api/admin/tags': {
    get: read('One page of tags, searched and sorted on the server', 'TagList', [
      queryParam('q'),
      queryParam('sort'),
      ...page,
    ]),
    post: write('Creates a tag', createTagSchema, 201, 'TagAnswer'),
  },
  '/api/admin/tags/{tag}': {
    get: read('A tag with its history and fleet', 'TagDetail', [tagParam()]),
    patch: {
      ...write('Edits a tag (max_id only upwards)', updateTagSchema, 200, 'TagAnswer'),
      parameters: [tagParam()],
    },
    delete: {
      ...write('Deletes a tag, leaving a tombstone', deleteTagSchema, 200, 'TagDeleted'),
      parameters: [tagParam()],
    },
  },
  '/api/admin/tags/{tag}/history': {
    get: read("This node's own record of a tag: IDs per 5 s bucket it sampled, and its claims", 'TagHistory', [
      tagParam(),
    ]),
  },
  '/api/admin/tags/{tag}/history/fleet': {
    get: read("Every node's record of a tag and their sum per bucket (null: a part unknown)", 'FleetTagHistory', [
      tagParam(),
    ]),
  },
  '/api/admin/tags/{tag}/decode/{id}': {
    get: read(
      "What an ID of the tag stands for: an opaque ID's sequence number, a short form's value, its region",
      'DecodedId',
      [
        tagParam(),
        { name: 'id', in: 'path', required: true, schema: { type: 'string', minLength: 1, maxLength: 24 } },
        formatParam(),
      ],
    ),
  },
  '/api/admin/tags/{tag}/issued': {
    get: read(
      'Every ID of the tag that can have been handed out between from and to (a superset, exact to whole claims)',
      'Issued',
      [tagParam(), { ...queryParam('from'), required: true }, { ...queryParam('to'), required: true }],
    ),
  },
  '/api/admin/semantics': {
    get: read('The fleet default and per-tag claim semantics', 'Semantics'),
    put: write('Switches the fleet default', fleetSemanticsSchema, 200, 'SemanticsSwitched'),
  },
  '/api/admin/workers': { get: read('Snowflake worker-id leases', 'Workers') },
  '/api/admin/audit': {
    get: read('The audit trail, newest first', 'AuditPage', [
      queryParam('tag'),
      queryParam('before', int),
      queryParam('limit', int),
    ]),
  },
  '/api/admin/nodes': {
    get: read('The fleet registry', 'Nodes', [queryParam('tag'), queryParam('tags')]),
  },
  '/api/admin/nodes/{node}/tags': {
    get: read("A page of one node's tags, shortest runway first", 'NodeTags', [
      { name: 'node', in: 'path', required: true, schema: str },
      queryParam('q'),
      queryParam('limit', int),
    ]),
  },
  '/api/admin/fleet': { get: read('The fleet in one card', 'Fleet') },
  '/api/admin/participants': {
    get: read('The processes changes of ordering wait for, with the version each applied', 'Participants'),
  },
  '/api/admin/participants/{id}': {
    delete: {
      ...write(
        'Forgets a process gone for good: no change of ordering waits for it',
        null,
        200,
        'ParticipantForgotten',
      ),
      parameters: [{ name: 'id', in: 'path', required: true, schema: str }],
    },
  },
  '/api/admin/tokens': {
    get: read('Access tokens (never the token itself)', 'Tokens'),
    post: write('Creates an access token: the only answer that carries it', createTokenSchema, 201, 'TokenCreated'),
  },
  '/api/admin/tokens/{id}': {
    delete: {
      ...write('Revokes a token', null, 200, 'TokenAnswer'),
      parameters: [{ name: 'id', in: 'path', required: true, schema: str }],
    },
  },
  '/api/admin/formats': {
    get: read('Formatted tags', 'Formats'),
    post: write('Creates a formatted tag', createFormatSchema, 201, 'FormatDetail'),
  },
  '/api/admin/formats/{tag}': {
    get: read('A formatted tag and its periods', 'FormatDetail', [tagParam()]),
    patch: {
      ...write('Edits a formatted tag (the pattern only by a wider sequence)', updateFormatSchema, 200, 'FormatDetail'),
      parameters: [tagParam()],
    },
    delete: {
      ...write('Deletes a formatted tag, keeping its periods', null, 200, 'FormatDeleted'),
      parameters: [tagParam()],
    },
  },
  '/api/auth/login': {
    post: {
      summary: 'Sets the session cookie',
      security: [{}],
      requestBody: body(loginSchema),
      responses: { '200': answer('logged in', ref('Ok')), ...errors(400, 401, 403, 405, 408, 413, 415, 429, 431, 503) },
    },
  },
  '/api/auth/logout': {
    post: {
      summary: 'Ends the session',
      security: [{}],
      responses: { '200': answer('logged out', ref('Ok')), ...errors(403, 405, 408, 431, 503) },
    },
  },
  '/api/auth/sessions': {
    get: read('The live console sessions of the admin token, the caller’s marked `current`', 'Sessions'),
    delete: write(
      'Sign out everywhere: ends every session, the caller’s too (its cookie is cleared)',
      null,
      200,
      'SessionsEnded',
    ),
  },
  '/api/auth/sessions/{id}': {
    delete: {
      ...write('Ends one session; 404 when it is not live', null, 200, 'SessionEnded'),
      parameters: [{ name: 'id', in: 'path', required: true, schema: str }],
    },
  },
  '/api/auth/session': {
    get: {
      summary: 'Whether the request carries a valid credential',
      security: [{}],
      responses: { '200': answer('session', ref('Session')), ...errors(405, 408, 431, 503) },
    },
  },
  '/api/metrics': {
    get: {
      summary: 'Prometheus text exposition',
      security: adminSecurity,
      responses: {
        '200': { description: 'metrics', content: { 'text/plain': { schema: str } } },
        ...ADMIN_READ_ERRORS,
      },
    },
  },
  '/api/openapi.json': {
    get: {
      summary: 'This document',
      security: [{}],
      responses: { '200': { description: 'OpenAPI 3.1', content: json({ type: 'object' }) }, ...errors(405, 408) },
    },
  },
};
