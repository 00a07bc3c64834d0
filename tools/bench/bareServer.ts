/**
 * The node:http ceiling for `npm run bench`: no framework, no engine, no store. Answers the ID routes' JSON shape
 * from an incrementing counter, with the same headers and the same writeHead/end pattern as server.ts's fast lane:
 *   GET /api/id/segment/{tag}            -> {"tag":"demo","id":"123"}
 *   GET /api/id/segment/{tag}?count=N    -> {"tag":"demo","ids":["1",…]}
 *   GET /api/health                      -> {"status":"ok"}
 * Env: PORT, HOST (default 127.0.0.1).
 */
import http from 'node:http';

const port = Number(process.env.PORT ?? 3100);
const hostname = process.env.HOST ?? '127.0.0.1';

const JSON_HEADERS = Object.freeze({ 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
const PREFIX = '/api/id/segment/';
let next = 1;

function body(url: string): string | null {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  if (path === '/api/health') return '{"status":"ok"}';
  if (!path.startsWith(PREFIX)) return null;
  const tag = path.slice(PREFIX.length);
  const c = q === -1 ? -1 : url.indexOf('count=', q);
  if (c === -1) return '{"tag":"' + tag + '","id":"' + next++ + '"}';
  const count = Number(url.slice(c + 6));
  let out = '{"tag":"' + tag + '","ids":["' + next++;
  for (let i = 1; i < count; i++) out += '","' + next++;
  return out + '"]}';
}

const server = http.createServer((req, res) => {
  const b = body(req.url ?? '/');
  if (b === null) {
    res.writeHead(404, JSON_HEADERS);
    res.end('{"error":{"code":"route_not_found","message":"No such route."}}');
  } else {
    res.writeHead(200, JSON_HEADERS);
    res.end(b);
  }
});
server.keepAliveTimeout = 65_000;
server.listen(port, hostname);

const shutdown = () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
