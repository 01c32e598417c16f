// The gateway's configuration: the broker it talks to, its own database and port, and the
// organizations it serves (GATEWAY_ORGANIZATIONS_FILE, config/gateway.json in development): for
// each, the connector credential it acts with, the identities its messages may carry (EDIFACT
// sender ids), and its adapter settings. Every message is processed for the organization of the
// mailbox it was dropped in, or of the credential it was sent with: never for one a message names.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { components } from '@pcx/sdk';
import type { EpcisSettings } from './epcis/settings';
import type { SpreadsheetSettings } from './spreadsheet/settings';

export interface ServedOrganization {
  organizationId: string;
  /** The connector credential the gateway acts with for this organization (client credentials). */
  clientId: string;
  clientSecret: string;
  edifact?: {
    /** UNB sender identifications this organization sends from; any other is quarantined. */
    senderIds: readonly string[];
    /** The `system` of the external references its messages carry (`edifact:<sender>` by default). */
    system?: string;
    /** The interchange recipient id the gateway answers as (UNB of CONTRL and APERAK). */
    gatewayId?: string;
    /** Local times of its status reports (DTM 203, 204) are read in this IANA zone (else loadRequests.timeZone). */
    timeZone?: string;
  };
  /**
   * A final milestone of its status messages (delivered, failed) also reports the execution
   * outcome (default false: an organization whose "delivered" may be partial reports outcomes itself).
   */
  reportOutcomes?: boolean;
  /** What an IFTMIN becomes: a draft, or a published load request, and what publishing needs that a message does not carry. */
  loadRequests?: {
    publish: boolean;
    /** Visibility of what it publishes (the organization's rule, not the message's). */
    visibility?: components['schemas']['LogisticsVisibility'];
    /** The offer body types its loads accept, when its messages carry none. */
    bodyTypes?: readonly components['schemas']['LogisticsVehicleBodyType'][];
    /** A published request expires this many hours before its pickup window starts (default 0: at its start). */
    expiresBeforePickupHours?: number;
    /** Local times without a zone (DTM format 102, 203) are read in this IANA zone. */
    timeZone?: string;
    /** The goods category of its loads (the exchange's coarse profile), when its messages carry none the mapping reads. */
    goodsCategory?: components['schemas']['LogisticsGoodsProfile']['category'];
    /** What a requested time (a DTM with a time, not a window) means: a window of this many minutes from it. */
    pointTimeMinutes?: number;
  };
  /** EPCIS 2.0 capture documents from its track-and-trace become milestones (gateway/epcis). */
  epcis?: EpcisSettings;
  /** Its spreadsheet of free trucks (CSV, XLSX) becomes capacity offers (gateway/spreadsheet). */
  spreadsheet?: SpreadsheetSettings;
  /**
   * What it is sent besides acknowledgements: the milestones of the movements its messages started,
   * in the format it reads (`edifact`: IFTSTA; `epcis`: EPCIS events), into its mailbox's out folder
   * and, with `push`, to its HTTPS endpoint (under the webhooks' target rules).
   */
  outbound?: {
    milestones?: 'edifact' | 'epcis';
    /** An HTTPS target that receives each notice as a POST, signed by Standard Webhooks with `secret` (whsec_…) when given. */
    push?: { url: string; secret?: string };
  };
  /** Its own places by the ids its messages use: `<agency>:<id>` (`9:5412345678908` for a GLN) to a UN/LOCODE. */
  places?: Readonly<Record<string, string>>;
}

export interface GatewayConfig {
  brokerUrl: string;
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  mailboxRoot: string;
  /** How often the mailboxes are looked at, in ms. */
  mailboxPollMs: number;
  /**
   * payloads: its workflows' payloads sealed as the broker's (TEMPORAL_PAYLOAD_ENCRYPTION, with the
   * broker's key ring: SECRETS_KEY_FILE or the data folder's generated one; core/payload-codec.ts);
   * absent (tests that build a configuration by hand), they go as they are.
   */
  temporal: { address: string; namespace: string; taskQueue: string; payloads?: { keyFile: string | undefined; dataDir: string; encrypt: boolean } };
  organizations: readonly ServedOrganization[];
  /** Largest message accepted, in bytes (HTTP and mailbox). */
  maxMessageBytes: number;
  /** Push targets: the webhooks' rules (WEBHOOK_ALLOWED_CIDRS opens private ranges; WEBHOOK_CA_FILE adds a trusted CA). */
  push: { allowCidrs: string[]; caFile?: string };
  /** Guards GET /health and /metrics (operator views of every organization), as the broker's METRICS_TOKEN does; open without one. */
  metricsToken?: string;
  /**
   * The protocol operator's organizations (GATEWAY_OPERATOR_ORGANIZATIONS; npm start: org-pcx-operator):
   * a token of one of them with exchange:admin lists, inspects, releases and discards every
   * organization's held messages (a released message is still processed for its own organization).
   */
  operatorOrganizations: string[];
  /**
   * The credential the gateway introspects callers' tokens with (RFC 7662, POST /oauth2/introspect;
   * GATEWAY_INTROSPECTION_CLIENT_ID and _SECRET): a client of the protocol operator's, which may
   * introspect every organization's tokens (npm start: the demo operator's). Without it the gateway
   * asks the broker by reading the caller's feed with the token (GET /events).
   */
  introspection?: { clientId: string; clientSecret: string };
  /** Origins of the planner console allowed to call the gateway from a browser (GATEWAY_CONSOLE_ORIGINS, comma-separated; npm start sets the broker's). */
  consoleOrigins: string[];
  /** How often each organization's event feed is read, in ms (GATEWAY_FEED_POLL_MS). */
  feedPollMs: number;
  /** A workflow bundle built beforehand (gateway/bundle.ts); without it the gateway bundles at start. */
  workflowBundleFile?: string;
  /**
   * Days after which a finished message's content is erased (GATEWAY_CONTENT_RETENTION_DAYS, 365:
   * the default retention policy's personal data period; store.ts, eraseOldContent).
   */
  contentRetentionDays: number;
}

const int = (name: string, fallback: number, env: NodeJS.ProcessEnv) => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
};

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const dataDir = resolve(env.DATA_DIR || '.data');
  const brokerPort = int('PORT', 8080, env);
  const file = resolve(env.GATEWAY_ORGANIZATIONS_FILE || join(__dirname, '..', 'config', 'gateway.json'));
  const organizations = JSON.parse(readFileSync(file, 'utf8')) as ServedOrganization[];
  for (const org of organizations) {
    if (!org.organizationId || !org.clientId || !org.clientSecret) throw new Error(`${file}: every organization needs organizationId, clientId and clientSecret`);
    if (org.outbound?.push && !/^https:\/\//.test(org.outbound.push.url)) throw new Error(`${file}: ${org.organizationId}'s outbound.push.url must be an https URL`);
  }
  return {
    brokerUrl: (env.GATEWAY_BROKER_URL || `http://127.0.0.1:${brokerPort}`).replace(/\/+$/, ''),
    host: env.HOST || '127.0.0.1',
    port: int('GATEWAY_PORT', 8090, env),
    dataDir: join(dataDir, 'gateway'),
    databaseUrl: env.GATEWAY_DATABASE_URL || undefined,
    mailboxRoot: resolve(env.GATEWAY_MAILBOX_DIR || join(dataDir, 'mailboxes')),
    mailboxPollMs: int('GATEWAY_MAILBOX_POLL_MS', 1000, env),
    temporal: {
      address: env.TEMPORAL_ADDRESS || '127.0.0.1:7233',
      namespace: env.TEMPORAL_NAMESPACE || 'default',
      taskQueue: env.GATEWAY_TASK_QUEUE || 'pcx-gateway',
      payloads: { keyFile: env.SECRETS_KEY_FILE || undefined, dataDir, encrypt: env.TEMPORAL_PAYLOAD_ENCRYPTION === 'true' },
    },
    organizations,
    maxMessageBytes: int('GATEWAY_MAX_MESSAGE_BYTES', 1_000_000, env),
    workflowBundleFile: env.GATEWAY_WORKFLOW_BUNDLE_FILE || undefined,
    push: {
      allowCidrs: (env.WEBHOOK_ALLOWED_CIDRS || '').split(',').map((c) => c.trim()).filter(Boolean),
      ...(env.WEBHOOK_CA_FILE ? { caFile: env.WEBHOOK_CA_FILE } : {}),
    },
    feedPollMs: int('GATEWAY_FEED_POLL_MS', 1000, env),
    contentRetentionDays: int('GATEWAY_CONTENT_RETENTION_DAYS', 365, env),
    operatorOrganizations: (env.GATEWAY_OPERATOR_ORGANIZATIONS || '').split(',').map((o) => o.trim()).filter(Boolean),
    ...(env.GATEWAY_INTROSPECTION_CLIENT_ID && env.GATEWAY_INTROSPECTION_CLIENT_SECRET ? { introspection: { clientId: env.GATEWAY_INTROSPECTION_CLIENT_ID, clientSecret: env.GATEWAY_INTROSPECTION_CLIENT_SECRET } } : {}),
    consoleOrigins: (env.GATEWAY_CONSOLE_ORIGINS || '').split(',').map((o) => o.trim()).filter(Boolean),
    ...(env.METRICS_TOKEN ? { metricsToken: env.METRICS_TOKEN } : {}),
  };
}
