// The records the broker logs (each kind's `ledger`, domain/) and the records the SDK proves in what
// it reads (`loggedKeys`, sdk/src/transparency-monitor.ts) are declared in two places, the SDK
// standing apart from the broker: here they are held to the same keys, and to the same values
// (the SDK's `loggedValue` of the document read is the record the ledger logs).
import { RESOURCES } from '../../domain/registry';
import { loggedKeys } from '../../sdk/src/transparency-monitor';
import { loggedValue } from '../../sdk/src/transparency';

const id = '01a25100-0000-7000-8000-000000000001';
const one = (extra: Record<string, unknown> = {}) => ({ id: `${id.slice(0, -1)}2`, at: '2026-12-07T10:00:00Z', ...extra });

/** A state of each logging kind with one record in each of its logged lists, and the documents a participant reads it in. */
const STATES: Record<string, { state: any; documents: Array<{ collection: string; document: any }> }> = {
  'match-proposal': { state: { id, decisions: [one({ decision: 'accept' }), one({ decision: 'reject' })] }, documents: [] },
  'transport-tender': { state: { id, revisions: [one({ number: 1, outcome: 'accepted' })], decisions: [one({ decision: 'accept' })] }, documents: [] },
  'transport-commitment': { state: { id, digest: { algorithm: 'SHA-256', value: 'ab' } }, documents: [] },
  'execution-handover': { state: { id, acknowledgements: [one({ outcome: 'imported' })] }, documents: [] },
  'execution-reference': {
    state: { id, outcomes: [{ id: 'o-1', status: 'disputed', supersedes: null, supersededByOutcomeId: 'o-2', resourceVersion: 2, updatedAt: 'later', commandId: 'c-1' }] },
    documents: [{ collection: 'execution-outcomes', document: { id: 'o-1', status: 'disputed', supersedes: null, supersededByOutcomeId: 'o-2', resourceVersion: 2, updatedAt: 'later' } }],
  },
};

test('every kind that logs records is known to the SDK, with the same keys and the same values', () => {
  const logging = RESOURCES.filter((r) => r.ledger).map((r) => r.kind).sort();
  expect(logging).toEqual(Object.keys(STATES).sort());
  for (const resource of RESOURCES.filter((r) => r.ledger)) {
    const { state, documents } = STATES[resource.kind];
    const ledger = resource.ledger!(state);
    expect(ledger.length).toBeGreaterThan(0);
    // Read as the resource's own document, or as the documents of its records (an outcome).
    const reads = documents.length ? documents : [{ collection: resource.collection, document: resource.document?.(state) ?? state }];
    const keys = reads.flatMap((r) => loggedKeys(r.collection, r.document));
    expect({ kind: resource.kind, keys }).toEqual({ kind: resource.kind, keys: ledger.map((l) => l.key) });
    for (const entry of ledger) {
      const read = reads.find((r) => entry.key.startsWith(`${r.collection}/${r.document.id}`))!;
      expect({ key: entry.key, value: loggedValue(entry.key, read.document) }).toEqual({ key: entry.key, value: JSON.parse(JSON.stringify(entry.record)) });
    }
  }
});
