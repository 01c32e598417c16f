// Temporal connection and the search attributes operators use to find a resource's workflow.
import { readFileSync } from 'node:fs';
import { Connection, type Client, type TLSConfig } from '@temporalio/client';
import { RETENTION_POKE, retentionWorkflowId } from '../domain/retention';
import type { Config } from './config';
import type { PayloadCodec } from '@temporalio/common';
import { KeyRingPayloadCodec } from './payload-codec';
import { keyRingOf } from './secrets';

/**
 * Keyword search attributes set by every entity workflow (workflows/entity.ts); `PcxCreateKey` only
 * by a create sent with an Idempotency-Key (domain/machine.ts `Command.createKey`).
 */
export const SEARCH_ATTRIBUTES = ['PcxResourceKind', 'PcxOwnerOrganizationId', 'PcxPartnerOrganizationId', 'PcxStatus', 'PcxCreateKey'] as const;

// temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD
const KEYWORD = 2;

/** Where and how the broker reaches the Temporal frontend (the `temporal` part of the configuration). */
export type TemporalSettings = Pick<Config['temporal'], 'address'> & Partial<Pick<Config['temporal'], 'tls' | 'apiKey'>>;

/**
 * The options both connections take, the client's `Connection` and the worker's
 * `NativeConnection`: address, TLS (server CA, client certificate pair for mutual TLS, server name
 * override) and API key. The PEM files are read here, at each connection, so a restart picks up
 * rotated certificates; core/config.ts has already checked them.
 */
export function temporalConnectionOptions(settings: TemporalSettings): { address: string; tls?: TLSConfig; apiKey?: string } {
  const options: { address: string; tls?: TLSConfig; apiKey?: string } = { address: settings.address };
  if (settings.tls) {
    const { certFile, keyFile, caFile, serverName } = settings.tls;
    options.tls = {
      ...(certFile && keyFile ? { clientCertPair: { crt: readFileSync(certFile), key: readFileSync(keyFile) } } : {}),
      ...(caFile ? { serverRootCACertificate: readFileSync(caFile) } : {}),
      ...(serverName ? { serverNameOverride: serverName } : {}),
    };
  }
  if (settings.apiKey) options.apiKey = settings.apiKey;
  return options;
}

/** Connects, retrying while the server starts (the embedded dev server takes a few seconds). */
export async function connectTemporal(settings: TemporalSettings, waitMs = 60000): Promise<Connection> {
  const deadline = Date.now() + waitMs;
  const options = temporalConnectionOptions(settings);
  for (;;) {
    try {
      return await Connection.connect({ ...options, connectTimeout: 2000 });
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** Registers the search attributes if the namespace lacks them (idempotent). */
export async function ensureSearchAttributes(connection: Connection, namespace: string): Promise<void> {
  const existing = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = SEARCH_ATTRIBUTES.filter((name) => !(name in (existing.customAttributes ?? {})));
  if (!missing.length) return;
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((name) => [name, KEYWORD])),
    });
  } catch (err) {
    // Another replica registered them in between.
    if (!/already exists/i.test(String((err as Error).message))) throw err;
  }
}

/**
 * Starts the retention workflow unless it runs (workflows/retention.ts). Not poked: a round at
 * every start would compete with a restarted broker's recovery for the database; a changed
 * policies file applies at the next daily round (or at once with `pokeRetention`).
 */
export async function startRetention(client: Client, taskQueue: string, input: { roundMs?: number } = {}): Promise<void> {
  await client.workflow.start('retentionWorkflow', {
    workflowId: retentionWorkflowId(taskQueue),
    taskQueue,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}

/** Runs a round of the purge now (a policies file changed, a benchmark). */
export async function pokeRetention(client: Client, taskQueue: string): Promise<void> {
  await client.workflow.getHandle(retentionWorkflowId(taskQueue)).signal(RETENTION_POKE);
}

/**
 * The data converter of every client and worker of the broker: its payloads sealed with the key
 * ring when TEMPORAL_PAYLOAD_ENCRYPTION is on, and sealed payloads opened whatever it says (a
 * history written with it on stays readable with it off).
 */
export function dataConverterOf(config: Pick<Config, 'temporal' | 'secrets' | 'dataDir'>): { payloadCodecs: PayloadCodec[] } {
  return sealedPayloads({ keyFile: config.secrets.keyFile, dataDir: config.dataDir, encrypt: config.temporal.payloadEncryption });
}

/** The same, from the key ring's file (or the data folder that holds a generated one) and the switch: the adapter gateway's clients and worker (gateway/main.ts). */
export function sealedPayloads(settings: { keyFile: string | undefined; dataDir: string; encrypt: boolean }): { payloadCodecs: PayloadCodec[] } {
  const { ring } = keyRingOf({ keyFile: settings.keyFile, dataDir: settings.dataDir });
  return { payloadCodecs: [new KeyRingPayloadCodec(ring, settings.encrypt)] };
}
