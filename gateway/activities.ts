// The steps of an inbound message (gateway/workflows.ts), each keyed by its inbox entry and safe to
// run again: a step that finds the entry further on changes nothing, every exchange command
// carries an Idempotency-Key derived from the entry, and an outbound message is added once.
import { ApplicationFailure, Context } from '@temporalio/activity';
import { PcxProblemError } from '@pcx/sdk';
import { createClients, type ClientOf } from './clients';
import type { Db } from '../core/db';
import type { GatewayConfig, ServedOrganization } from './config';
import type { Mapped, ReportedMilestone, Submitted } from './format';
import { formatOf } from './formats';
import { writeOutbound } from './mailbox';
import { recordMilestones, resolveMilestones, type ResolvedMilestone } from './milestones';
import { addOutbound, advance, claimSenderReference, quarantine, releaseSenderReference, readEntry, recordMappings, type InboxEntry } from './store';

export type GatewayActivities = ReturnType<typeof createGatewayActivities>;

/** `organizations`: the served organizations with their settings in force (settings.ts), read at each step: a change through the API applies to the next message. */
export function createGatewayActivities(db: Db, config: GatewayConfig, clientOf: ClientOf = createClients(config), organizations: () => readonly ServedOrganization[] = () => config.organizations) {
  const organization = (id: string): ServedOrganization => {
    const org = organizations().find((o) => o.organizationId === id);
    if (!org) throw ApplicationFailure.nonRetryable(`the gateway does not serve ${id}`, 'NotServed');
    return org;
  };
  const entryOf = async (id: string): Promise<InboxEntry> => {
    const entry = await readEntry(db, id);
    if (!entry) throw ApplicationFailure.nonRetryable(`no inbox entry ${id}`, 'NoEntry');
    return entry;
  };

  return {
    /** Parses, checks and maps the message: `mapped`, or `quarantined` with the reasons. */
    async mapMessage(id: string): Promise<'mapped' | 'quarantined' | 'done'> {
      const entry = await entryOf(id);
      if (entry.status !== 'received') return entry.status === 'quarantined' ? 'quarantined' : entry.status === 'acknowledged' ? 'done' : 'mapped';
      const others = organizations().filter((o) => o.organizationId !== entry.organizationId);
      let outcome = formatOf(entry.format).map(entry, organization(entry.organizationId), others);
      // Milestones are found on their movements here, from the organization's own mapping state.
      const reported = outcome.kind === 'mapped' ? (outcome.milestones as ReportedMilestone[] | undefined) : undefined;
      if (reported?.length) {
        const { resolved, reasons } = await resolveMilestones(db, entry.organizationId, reported);
        outcome = reasons.length ? { ...outcome, kind: 'quarantined', reasons } : { ...outcome, kind: 'mapped', milestones: resolved };
      }
      // A transmission whose sender reference was acted on before is a resend: held, naming the first.
      if (outcome.kind === 'mapped' && outcome.senderReference) {
        const { value, label, position } = outcome.senderReference;
        const first = await claimSenderReference(db, entry, value);
        if (first.inboxId !== id) {
          const reason = { code: 'DUPLICATE_TRANSMISSION', message: `${label} was received before, as message ${first.inboxId} (${first.receivedAt}), and acted on; a new transmission needs a reference of its own`, position };
          outcome = { ...outcome, kind: 'quarantined', reasons: [reason], duplicateOf: first.inboxId };
        }
      }
      if (outcome.kind === 'quarantined') {
        const held = outcome;
        await db.transaction(async (tx) => {
          await quarantine(tx, entry, held.reasons);
          await advance(tx, id, ['received'], 'quarantined', held);
        });
        return 'quarantined';
      }
      await advance(db, id, ['received'], 'mapped', outcome);
      return 'mapped';
    },

    /** Sends what the message became to the exchange, as its organization's connector. */
    async submitMessage(id: string): Promise<void> {
      const entry = await entryOf(id);
      if (entry.status !== 'mapped') return;
      const mapped = entry.result as Mapped;
      const org = organization(entry.organizationId);
      let submitted: Submitted;
      // Alive while the broker answers (the workflow's heartbeat timeout finds a killed worker in seconds).
      const beat = setInterval(() => Context.current().heartbeat(), 1000);
      try {
        const key = (step: string) => `gw-${id}-${step}`;
        submitted = await formatOf(entry.format).submit(mapped, clientOf(org), key);
        const milestones = mapped.milestones as ResolvedMilestone[] | undefined;
        if (milestones?.length && submitted.kind === 'created') submitted = { ...submitted, milestones: await recordMilestones(milestones, clientOf(org), key, { reportOutcomes: org.reportOutcomes === true }) };
      } catch (err) {
        // A refusal of the exchange is the sender's answer (APERAK), never retried; anything else
        // (unreachable, 5xx after the SDK's retries) is retried by the workflow.
        const refused = err instanceof PcxProblemError && err.status < 500 && err.status !== 429 && err.code !== 'IDEMPOTENCY_IN_PROGRESS';
        if (!refused) throw err;
        submitted = { kind: 'refused', problem: { status: err.status, code: err.code, detail: err.problem.detail ?? err.message } };
      } finally {
        clearInterval(beat);
      }
      await db.transaction(async (tx) => {
        if (submitted.kind !== 'refused') await recordMappings(tx, entry.organizationId, id, submitted.mappings);
        // Refused by the exchange, it was not acted on: the sender may resend it, corrected, under the same reference.
        else await releaseSenderReference(tx, id);
        await advance(tx, id, ['mapped'], 'submitted', { ...mapped, submitted });
      });
    },

    /** Writes the sender's acknowledgements to the outbox (and its mailbox), once; the entry is done. */
    async acknowledgeMessage(id: string): Promise<string> {
      const entry = await entryOf(id);
      if (entry.status === 'acknowledged') return 'acknowledged';
      const org = organization(entry.organizationId);
      const messages = formatOf(entry.format).acknowledge(entry, org, new Date());
      for (const message of messages) {
        const stored = await addOutbound(db, { organizationId: entry.organizationId, inboxId: id, kind: message.kind, name: message.name, content: message.content });
        if (entry.transport === 'mailbox') writeOutbound(config.mailboxRoot, entry.organizationId, stored.name, stored.content);
      }
      await advance(db, id, ['quarantined', 'submitted'], 'acknowledged');
      return 'acknowledged';
    },
  };
}
