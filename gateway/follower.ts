// The gateway's side of the exchange's event feed: for each organization it serves, it reads the
// organization's feed (GET /events, as its connector) from the cursor kept in gateway_cursor, so
// that after downtime it catches up where it stopped, and
// - learns the organization's movements: an execution reference's or handover's event has it read
//   the reference and record, in the mapping state, the references its status messages may name
//   (the handover's source and destination references, a link's trip and order references) and,
//   for the shipper, the consignment references of the load request its IFTMIN became;
// - tells the shipper each milestone recorded on a movement that came from its message, in the
//   format it reads (outbound.milestones): into its mailbox and, with outbound.push, to its target.
// Applying an event is idempotent (mappings once, an outbound message once per milestone), so a
// page read twice after a crash changes nothing. Why a loop and not a workflow: docs/decisions.md.
import { PcxProblemError, type PcxClient } from '@pcx/sdk';
import type { Db } from '../core/db';
import type { ServedOrganization } from './config';
import type { MilestoneNotice } from './format';
import { formatOf } from './formats';
import { addDeadLetter, addOutbound, readCursor, recordMappings, referencesOf, saveCursor, type Mapping } from './store';

interface FeedEvent {
  id: string;
  type: string;
  subject?: string;
  time: string;
  data?: any;
}

/** An external reference as the exchange names one (system, type, value). */
type Ref = { system: string; type: string; value: string };

interface Reference {
  id: string;
  acceptedProposalId?: string;
  shipperOrganizationId?: string;
  sourceExternalReferences?: Ref[];
  destinationExternalReferences?: Ref[];
  externalTripRefs?: Ref[];
  externalOrderRefs?: Ref[];
}

interface Update {
  id: string;
  milestone: MilestoneNotice['milestone'];
  occurredAt: string;
  recordedAt: string;
  reason?: string;
  position?: { kind: string; code?: string };
  submittedBy: { organizationId: string };
}

/** What the follower of one organization has done, for health and metrics. */
export interface FollowerState {
  organizationId: string;
  /** When the feed was last read to its end. */
  caughtUpAt?: string;
  /** The time of the last event applied. */
  lastEventAt?: string;
  /** Seconds between the newest event read and now, while pages remain (0 when caught up). */
  lagSeconds: number;
  eventsApplied: number;
  /** Mappings learnt from the exchange and milestones told (counts since start). */
  mappingsLearnt: number;
  noticesWritten: number;
  deadLetters: number;
  /** The last failure to read the feed (the broker unreachable), cleared by a good read. */
  error?: string;
}

const KINDS_OF_MOVEMENT = /^pcx\.(execution-reference|execution|execution-handover)\./;

export interface Follower {
  states(): FollowerState[];
  /** Reads every organization's feed to its end once (what the loop does each round); resolves with what it applied. */
  catchUp(): Promise<number>;
  /** Learns one movement of the organization and writes the notices it missed. */
  movement(org: ServedOrganization, referenceId: string, handoverIds?: readonly string[]): Promise<{ mappingsAdded: number; noticesWritten: number }>;
  stop(): Promise<void>;
}

/** `organizations`: the served organizations with their settings in force (settings.ts), read at each round. */
export function createFollower(db: Db, organizations: () => readonly ServedOrganization[], clientOf: (org: ServedOrganization) => PcxClient, options: { pollMs: number; onNotice: () => void }): Follower {
  const states = new Map(organizations().map((o) => [o.organizationId, { organizationId: o.organizationId, lagSeconds: 0, eventsApplied: 0, mappingsLearnt: 0, noticesWritten: 0, deadLetters: 0 } as FollowerState]));
  let running = true;
  let wake: (() => void) | undefined;

  /**
   * Records a movement's references for the organization; answers how many were new. The
   * handovers its events named are read too: the references an acknowledgement brings (the
   * executing system's trip) reach the execution reference by a flow that emits no event of its
   * own, so the reference read at the handover's event may not hold them yet; the handover does.
   */
  async function learn(org: ServedOrganization, client: PcxClient, referenceId: string, handoverIds: readonly string[]): Promise<number> {
    const reference = (await client.request<Reference>('GET', '/execution-references/{id}', { path: { id: referenceId } })).data;
    const mappings: Mapping[] = [];
    const asMapping = (r: Ref): Mapping => ({ system: r.system, type: r.type, value: r.value, resourceKind: 'execution-reference', resourceId: reference.id });
    for (const list of [reference.sourceExternalReferences, reference.destinationExternalReferences, reference.externalTripRefs, reference.externalOrderRefs]) mappings.push(...(list ?? []).map(asMapping));
    for (const id of handoverIds) {
      const handover = (await client.request<{ sourceExternalReferences?: Ref[]; destinationExternalReference?: Ref }>('GET', '/execution-handovers/{id}', { path: { id } })).data;
      mappings.push(...(handover.sourceExternalReferences ?? []).map(asMapping), ...(handover.destinationExternalReference ? [asMapping(handover.destinationExternalReference)] : []));
    }
    // The shipper's consignment: the references of the load request its own message became.
    if (reference.acceptedProposalId && reference.shipperOrganizationId === org.organizationId) {
      const proposal = (await client.request<{ loadRequestId: string }>('GET', '/match-proposals/{id}', { path: { id: reference.acceptedProposalId } })).data;
      for (const m of await referencesOf(db, org.organizationId, proposal.loadRequestId)) if (m.resourceKind === 'load-request') mappings.push(asMapping(m));
    }
    const before = (await referencesOf(db, org.organizationId, reference.id)).length;
    await recordMappings(db, org.organizationId, `feed-${reference.id}`, mappings);
    const learnt = (await referencesOf(db, org.organizationId, reference.id)).length - before;
    states.get(org.organizationId)!.mappingsLearnt += learnt;
    return learnt;
  }

  /** Writes a notice of every milestone of the movement the organization has not been told of; answers how many. */
  async function tell(org: ServedOrganization, client: PcxClient, referenceId: string): Promise<number> {
    const format = org.outbound?.milestones ? formatOf(org.outbound.milestones) : undefined;
    if (!format?.notify) return 0;
    const consignment = (await referencesOf(db, org.organizationId, referenceId)).filter((m) => m.type.startsWith('BGM+') || m.type.startsWith('RFF+'));
    const documentNumber = consignment.find((m) => m.type.startsWith('BGM+'))?.value;
    if (!documentNumber) return 0; // not a movement its own message started
    const updates = (await client.request<{ items: Update[] }>('GET', '/execution-references/{id}/updates', { path: { id: referenceId } })).data.items;
    let written = 0;
    for (const update of updates) {
      if (update.submittedBy.organizationId === org.organizationId) continue; // its own report
      const notice: MilestoneNotice = {
        executionReferenceId: referenceId,
        updateId: update.id,
        milestone: update.milestone,
        occurredAt: update.occurredAt,
        recordedAt: update.recordedAt,
        ...(update.position?.kind === 'unlocode' && update.position.code ? { unLocode: update.position.code } : {}),
        ...(update.reason ? { reason: update.reason } : {}),
        consignment: { documentNumber, references: consignment.map(({ system, type, value }) => ({ system, type, value })) },
      };
      const draft = format.notify(notice, org, new Date(update.recordedAt));
      const stored = await addOutbound(db, { organizationId: org.organizationId, inboxId: `update-${update.id}`, kind: 'notice', name: draft.name, content: draft.content });
      if (stored.created) written++;
    }
    states.get(org.organizationId)!.noticesWritten += written;
    if (written) options.onNotice();
    return written;
  }

  /** Learns one movement of the organization (and the handovers named) and tells it what it missed (the feed and reconciliation alike). */
  async function movement(org: ServedOrganization, referenceId: string, handoverIds: readonly string[] = []): Promise<{ mappingsAdded: number; noticesWritten: number }> {
    const client = clientOf(org);
    const mappingsAdded = await learn(org, client, referenceId, handoverIds);
    return { mappingsAdded, noticesWritten: await tell(org, client, referenceId) };
  }

  /** The movement an event concerns, if any: a reference's own events, or a handover naming its reference. */
  function movementOf(event: FeedEvent): string | undefined {
    if (!KINDS_OF_MOVEMENT.test(event.type) || !event.subject) return undefined;
    // Subjects are `<collection>/<id>`; a handover of a direct tender names no reference: no movement to learn.
    return event.type.startsWith('pcx.execution-handover.') ? (event.data?.executionReferenceId as string | undefined) : /^execution-references\/([^/]+)$/.exec(event.subject)?.[1];
  }

  /** One organization's feed, from its cursor to its end. */
  async function follow(org: ServedOrganization): Promise<number> {
    const client = clientOf(org);
    const state = states.get(org.organizationId)!;
    let applied = 0;
    for (;;) {
      const cursor = await readCursor(db, org.organizationId);
      const page = (await client.request<{ items: FeedEvent[]; nextCursor: string }>('GET', '/events', { query: { ...(cursor ? { cursor } : {}), limit: 100 } })).data;
      // Each movement of the page once, however many of its events the page holds (a busy feed
      // holds many per movement): learning and telling read its whole state anyway.
      const byMovement = new Map<string, FeedEvent[]>();
      for (const event of page.items) {
        const referenceId = movementOf(event);
        if (referenceId) byMovement.set(referenceId, [...(byMovement.get(referenceId) ?? []), event]);
      }
      for (const [referenceId, events] of byMovement) {
        try {
          const handoverIds = [...new Set(events.flatMap((e) => /^execution-handovers\/([^/]+)$/.exec(e.subject ?? '')?.[1] ?? []))];
          await movement(org, referenceId, handoverIds);
        } catch (err) {
          // A resource the organization may no longer read is not a reason to stop its feed.
          if (!(err instanceof PcxProblemError) || err.status >= 500 || err.status === 429) throw err;
          for (const event of events) await addDeadLetter(db, org.organizationId, event, `${err.status} ${err.code}: ${err.message}`);
          state.deadLetters += events.length;
        }
      }
      if (page.items.length) state.lastEventAt = page.items.at(-1)!.time;
      state.eventsApplied += page.items.length;
      applied += page.items.length;
      if (page.nextCursor && page.nextCursor !== cursor) await saveCursor(db, org.organizationId, page.nextCursor);
      const last = page.items.at(-1);
      if (!page.items.length || page.nextCursor === cursor) {
        state.lagSeconds = 0;
        state.caughtUpAt = new Date().toISOString();
        delete state.error;
        return applied;
      }
      state.lagSeconds = last ? Math.max(0, (Date.now() - Date.parse(last.time)) / 1000) : 0;
    }
  }

  // One reading at a time (the loop's and an operator's reconcile): a cursor never moves back.
  let reading: Promise<number> | undefined;
  const catchUp = () => (reading ??= readAll().finally(() => (reading = undefined)));

  async function readAll(): Promise<number> {
    // The organizations' feeds side by side: one's busy feed does not hold back another's notices.
    const counts = await Promise.all(
      organizations().map((org) =>
        follow(org).catch((err) => {
          states.get(org.organizationId)!.error = String((err as Error)?.message ?? err);
          return 0;
        }),
      ),
    );
    return counts.reduce((a, b) => a + b, 0);
  }

  const loop = (async () => {
    while (running) {
      await catchUp();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();

  return {
    states: () => [...states.values()].map((s) => ({ ...s })),
    catchUp,
    movement,
    async stop() {
      running = false;
      wake?.();
      await loop;
    },
  };
}
