/**
 * The approaches Leaf replaced, for `npm run bench`: one bare node:http server per approach, answering the ID
 * route's JSON shape with the same headers and writeHead/end pattern as tools/bench/bareServer.ts and the fast lane:
 *   GET /api/id/segment/{tag}  -> {"tag":"demo","id":"123"}
 *   GET /api/health            -> {"status":"ok"}
 * One ID per request; the ID comes from
 *   ALT_MODE=autoinc  one `INSERT INTO id_autoinc () VALUES ()` per ID (InnoDB AUTO_INCREMENT, autocommit); the OK
 *                     packet's insert id is the ID
 *   ALT_MODE=flickr   Flickr's ticket server: `REPLACE INTO tickets64 (stub) VALUES ('a')` then
 *                     `SELECT LAST_INSERT_ID()` on ONE pooled connection per pair (tickets64 is MyISAM)
 *   ALT_MODE=redis    Redis `INCR id:{tag}` (node-redis, one connection; it pipelines commands issued together)
 *   ALT_MODE=uuid     crypto.randomUUID()
 * Tables are created by tools/bench/run.ts before this starts. A failed query answers 503 JSON (counted as non-2xx).
 * Env: PORT, HOST (default 127.0.0.1), ALT_MODE, ALT_MYSQL_URL, ALT_MYSQL_POOL (16), ALT_REDIS_URL.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import mysql, { type ResultSetHeader, type RowDataPacket } from 'mysql2/promise';
import { createClient } from 'redis';

const port = Number(process.env.PORT ?? 3100);
const hostname = process.env.HOST ?? '127.0.0.1';
const mode = process.env.ALT_MODE ?? '';

const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
const PREFIX = '/api/id/segment/';
const UNAVAILABLE = '{"error":{"code":"store_unavailable","message":"The ID source failed."}}';

async function source(): Promise<{ next: (tag: string) => Promise<string>; close: () => Promise<void> }> {
  if (mode === 'uuid') return { next: async () => randomUUID(), close: async () => {} };
  if (mode === 'redis') {
    const client = createClient({ url: process.env.ALT_REDIS_URL });
    client.on('error', (e: unknown) => process.stderr.write(`redis client: ${String(e)}\n`));
    await client.connect();
    return { next: async (tag) => String(await client.incr(`id:${tag}`)), close: () => client.close() };
  }
  if (mode === 'autoinc' || mode === 'flickr') {
    const pool = mysql.createPool({
      uri: process.env.ALT_MYSQL_URL,
      connectionLimit: Number(process.env.ALT_MYSQL_POOL ?? 16),
      supportBigNumbers: true,
      bigNumberStrings: true,
      enableKeepAlive: true,
    });
    const close = () => pool.end();
    if (mode === 'autoinc') {
      return {
        next: async () => {
          const [header] = await pool.query<ResultSetHeader>('INSERT INTO id_autoinc () VALUES ()');
          return String(header.insertId);
        },
        close,
      };
    }
    return {
      next: async () => {
        // The pair must run on one connection: LAST_INSERT_ID() is per connection.
        const conn = await pool.getConnection();
        try {
          await conn.query("REPLACE INTO tickets64 (stub) VALUES ('a')");
          const [rows] = await conn.query<RowDataPacket[]>('SELECT LAST_INSERT_ID() AS id');
          const row = rows[0];
          if (row === undefined) throw new Error('flickr: SELECT LAST_INSERT_ID() returned no row');
          return String(row.id);
        } finally {
          conn.release();
        }
      },
      close,
    };
  }
  throw new Error(`ALT_MODE must be autoinc, flickr, redis or uuid (got "${mode}")`);
}

async function main(): Promise<void> {
  const ids = await source();
  const server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    if (path === '/api/health') {
      res.writeHead(200, JSON_HEADERS);
      res.end('{"status":"ok"}');
      return;
    }
    if (!path.startsWith(PREFIX)) {
      res.writeHead(404, JSON_HEADERS);
      res.end('{"error":{"code":"route_not_found","message":"No such route."}}');
      return;
    }
    const tag = path.slice(PREFIX.length);
    ids.next(tag).then(
      (id) => {
        res.writeHead(200, JSON_HEADERS);
        res.end('{"tag":"' + tag + '","id":"' + id + '"}');
      },
      (error: unknown) => {
        process.stderr.write(`${mode}: ${String(error)}\n`);
        res.writeHead(503, JSON_HEADERS);
        res.end(UNAVAILABLE);
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  server.listen(port, hostname);

  const shutdown = () => {
    server.close();
    server.closeAllConnections();
    void ids.close().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 2_000).unref();
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`altServer ${mode}: ${String(error)}\n`);
  process.exit(1);
});
