/**
 * The processes a change of ordering waits for (GET /api/admin/participants), and an operator's word that one is
 * gone for good (DELETE /api/admin/participants/{id}, audited as participant.forget): docs/operations.md#making-a-tag-strict.
 */
import { LeafError } from '../errors';
import type { OrderStore } from '../ordered/orderStore';
import { type ParticipantView, participantView } from './orderViews';
import { type Requester, auditStamp } from './service';
import type { NodeParts } from './nodeParts';

export interface ParticipantsView {
  /** The fleet's ordering version: a participant below it has not applied the latest change. */
  version: number;
  participants: ParticipantView[];
}

export async function listParticipants(rt: { store: { order: OrderStore } }): Promise<ParticipantsView> {
  const [{ participants, dbNowMs }, { version }] = await Promise.all([
    rt.store.order.listParticipants(),
    rt.store.order.readOrder(),
  ]);
  return { version, participants: participants.map((p) => participantView(p, dbNowMs)) };
}

const INSTANCE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Removes a participant that will never acknowledge again; 404 when there is none by that id. */
export async function forgetParticipant(
  rt: Pick<NodeParts, 'store' | 'config' | 'ordered'>,
  instanceId: string,
  who: Requester,
): Promise<{ forgotten: string }> {
  if (!INSTANCE_ID.test(instanceId)) throw new LeafError('invalid_request', 'Not a participant id.');
  if (!(await rt.store.order.removeParticipant(instanceId, auditStamp(rt, who))))
    throw new LeafError('node_not_found', `No process "${instanceId}" is registered (it may have stopped already).`);
  await rt.ordered.poll(); // a change waiting only for it completes now
  return { forgotten: instanceId };
}
