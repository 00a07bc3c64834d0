/**
 * The `@leaf-ts/client` processes this node vouches for (docs/design.md#ordered-tags): a client hands out leased IDs
 * only while it holds a vouch, `vouchMs` less a tenth from when it asked; this node acknowledges an ordering version
 * only once every client it vouched for has acknowledged it too, or its vouch has surely run out (`vouchMs` plus a
 * tenth after it was given, on this node's clock). Nothing here needs the database: a client rides out its outage.
 */
import { LeafError } from '../errors';

interface Vouch {
  acked: number;
  /** Monotonic ms: after this the client has surely stopped handing out what it holds. */
  until: number;
}

export interface ClientVouchesOptions {
  vouchMs: number;
  /** Milliseconds that only ever grow. */
  monotonic: () => number;
  /** Clients vouched for at once, at most: a flood of made-up ids cannot grow memory without bound. */
  limit?: number;
}

const DEFAULT_LIMIT = 10_000;

/** A client id as it may come: letters, digits, `-` and `_`, 8 to 64 of them (the client sends a random UUID). */
const CLIENT_ID = /^[A-Za-z0-9_-]{8,64}$/;

export class ClientVouches {
  private readonly vouches = new Map<string, Vouch>();

  constructor(private readonly o: ClientVouchesOptions) {}

  get size(): number {
    return this.vouches.size;
  }

  /** The client's vouch renewed, with the version it has applied (which only grows). */
  renew(clientId: string, acked: number): void {
    checkClientId(clientId);
    const now = this.o.monotonic();
    const current = this.vouches.get(clientId);
    if (current === undefined && this.vouches.size >= (this.o.limit ?? DEFAULT_LIMIT)) {
      this.expire(now);
      if (this.vouches.size >= (this.o.limit ?? DEFAULT_LIMIT))
        throw new LeafError('not_ready', 'This node vouches for as many clients as it can; try another node.', {
          retryAfterSeconds: 1,
        });
    }
    const until = now + this.o.vouchMs + Math.ceil(this.o.vouchMs / 10);
    this.vouches.set(clientId, { acked: Math.max(acked, current?.acked ?? 0), until });
  }

  /** A client that closed: it holds nothing any more. */
  forget(clientId: string): void {
    this.vouches.delete(clientId);
  }

  /** The lowest version a client with a live vouch has applied (Infinity with none): this node acknowledges no more. */
  lowestAcked(): number {
    const now = this.o.monotonic();
    this.expire(now);
    let lowest = Infinity;
    for (const v of this.vouches.values()) if (v.acked < lowest) lowest = v.acked;
    return lowest;
  }

  private expire(now: number): void {
    for (const [id, v] of this.vouches) if (v.until <= now) this.vouches.delete(id);
  }
}

export function checkClientId(clientId: string): void {
  if (!CLIENT_ID.test(clientId))
    throw new LeafError('invalid_request', 'client must be 8 to 64 letters, digits, "-" or "_".');
}
