// Delivery of what the gateway sends an organization of its own accord (milestone notices, from
// gateway/follower.ts): written into its mailbox's out folder, and pushed to its HTTPS target when
// it configured one (outbound.push). Each message is stored first (gateway_outbox), then
// delivered, then marked: a crash in between delivers it again (at least once; its name carries
// the milestone's id, so a receiver recognises a repeat). Pushes go under the webhooks' target
// rules (core/webhooks: https only, no private or special addresses unless WEBHOOK_ALLOWED_CIDRS
// allows them, the checked address connected to, no redirects) and are signed by Standard
// Webhooks with the organization's push secret; a failed push is retried with backoff, in order.
import { checkTarget, type Resolve } from '../core/webhooks/target';
import { sendWebhook } from '../core/webhooks/send';
import { signedHeaders } from '../core/webhooks/sign';
import type { Db } from '../core/db';
import type { ServedOrganization } from './config';
import { writeOutbound } from './mailbox';
import { markDelivered, markPushed, undelivered, unpushed } from './store';

export interface PushPolicy {
  allowCidrs: string[];
  resolve: Resolve;
  /** An extra certificate authority (PEM) trusted for push targets (tests, private PKIs). */
  ca?: string;
}

const CONTENT_TYPES: Record<string, string> = { '.edi': 'application/EDIFACT', '.json': 'application/ld+json', '.csv': 'text/csv' };
const contentTypeOf = (name: string) => CONTENT_TYPES[Object.keys(CONTENT_TYPES).find((e) => name.endsWith(e)) ?? ''] ?? 'application/octet-stream';

export interface PushState {
  organizationId: string;
  pending: number;
  lastError?: string;
  nextAttemptAt?: string;
}

/** `organizations`: the served organizations with their settings in force (settings.ts: a push target changed through the API applies at the next round). */
export function createDelivery(db: Db, organizations: () => readonly ServedOrganization[], mailboxRoot: string, policy: PushPolicy) {
  const backoff = new Map<string, { until: number; attempts: number; error: string }>();

  /** Writes every notice not yet in its organization's mailbox. */
  async function toMailboxes(): Promise<void> {
    for (const message of await undelivered(db, 'notice')) {
      writeOutbound(mailboxRoot, message.organizationId, message.name, message.content);
      await markDelivered(db, message.id);
    }
  }

  /** Pushes one organization's waiting notices, oldest first, stopping at the first failure. */
  async function push(org: ServedOrganization): Promise<void> {
    const target = org.outbound?.push;
    if (!target) return;
    const waiting = backoff.get(org.organizationId);
    if (waiting && Date.now() < waiting.until) return;
    for (const message of await unpushed(db, org.organizationId, 'notice')) {
      const checked = await checkTarget(target.url, policy);
      const fail = async (error: string) => {
        await markPushed(db, message.id, error);
        const attempts = (backoff.get(org.organizationId)?.attempts ?? 0) + 1;
        backoff.set(org.organizationId, { until: Date.now() + Math.min(300_000, 1000 * 2 ** attempts), attempts, error });
      };
      if (!checked.ok) return fail(`${checked.code}: ${checked.detail}`);
      const at = new Date();
      const headers = { ...signedHeaders(target.secret ? [target.secret] : [], `pcx-gw-${message.id}`, at, message.content), 'content-type': contentTypeOf(message.name), 'user-agent': 'PCX-Gateway/1' };
      if (!target.secret) delete (headers as Record<string, string>)['webhook-signature'];
      const sent = await sendWebhook({ target: checked.target, headers, body: message.content, ...(policy.ca ? { ca: policy.ca } : {}) });
      if (!sent.ok) return fail(sent.error === 'status' ? `answered ${sent.status}` : (sent.error ?? 'failed'));
      await markPushed(db, message.id);
      backoff.delete(org.organizationId);
    }
  }

  // One round at a time: the rounds are started on a timer, and a round that outlasts the interval
  // (a slow target, a loaded machine) must not be joined by another that pushes the same waiting
  // notices again (seen: one notice pushed three times within 150 ms).
  let round: Promise<void> | undefined;

  return {
    deliver(): Promise<void> {
      round ??= (async () => {
        await toMailboxes();
        for (const org of organizations()) await push(org);
      })().finally(() => {
        round = undefined;
      });
      return round;
    },
    async pushStates(): Promise<PushState[]> {
      const states: PushState[] = [];
      for (const org of organizations()) {
        if (!org.outbound?.push) continue;
        const waiting = backoff.get(org.organizationId);
        states.push({
          organizationId: org.organizationId,
          pending: (await unpushed(db, org.organizationId, 'notice')).length,
          ...(waiting ? { lastError: waiting.error, nextAttemptAt: new Date(waiting.until).toISOString() } : {}),
        });
      }
      return states;
    },
  };
}

export type Delivery = ReturnType<typeof createDelivery>;
