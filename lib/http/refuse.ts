import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Answer } from './answer';
import { BODY_LIMITS } from './bodyLimits';

/** Answers a request refused before its body was read, drains the body, then closes: no reset eats the answer. */
export function refuseWithBody(req: IncomingMessage, res: ServerResponse, answer: Answer, limits = BODY_LIMITS): void {
  const send = () => {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(answer.status, { ...answer.headers, connection: 'close' });
    res.end(answer.body);
  };
  const declared = Number(req.headers['content-length'] ?? 0);
  const hasBody = declared > 0 || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody || req.complete || declared > limits.discardBytes) return send();

  let seen = 0;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    req.off('data', onData);
    send();
  };
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > limits.discardBytes) finish();
  };
  const timer = setTimeout(finish, limits.discardMs);
  req.on('data', onData);
  req.once('end', finish);
  req.once('error', finish);
  req.once('close', finish);
}
