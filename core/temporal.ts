// Temporal connection and the search attributes operators use to find a resource's workflow.
import { Connection } from '@temporalio/client';

/** Keyword search attributes set by every entity workflow (workflows/entity.ts). */
export const SEARCH_ATTRIBUTES = ['PcxResourceKind', 'PcxOwnerOrganizationId', 'PcxPartnerOrganizationId', 'PcxStatus'] as const;

// temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD
const KEYWORD = 2;

/** Connects, retrying while the server starts (the embedded dev server takes a few seconds). */
export async function connectTemporal(address: string, waitMs = 60000): Promise<Connection> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await Connection.connect({ address, connectTimeout: 2000 });
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
