// The adapter gateway keeps what it received and sent (contact persons, addresses among it) only as
// long as it must (gateway/store.ts, eraseOldContent; docs/retention.md): a message done with and
// older than the period has its content erased, its row, digest, status and result kept; one held
// in quarantine (its planner may still release it), one not yet delivered, and a recent one keep
// theirs. On PGlite in this process, the gateway's default.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../../core/db';
import { addOutbound, advance, eraseOldContent, markDelivered, openGatewayDb, quarantine, readEntry, receive, storable, storableJson } from '../../gateway/store';

let db: Db;
beforeAll(async () => {
  db = await openGatewayDb({ dataDir: mkdtempSync(join(tmpdir(), 'pcx-gw-retention-')) });
});
afterAll(async () => {
  await db?.close();
});

const message = (id: string) => ({ id, organizationId: 'org-a', transport: 'mailbox' as const, format: 'edifact', name: `${id}.edi`, contentSha256: `sha-${id}`, content: `NAD+CZ+++Jan Kowalski' ${id}` });
const age = (table: string, column: string, where: string, days: number) => db.query(`update ${table} set ${column} = now() - make_interval(days => ${days}) where ${where}`);

test('content older than the period and done with is erased; held, undelivered and recent messages keep theirs; a second round erases nothing', async () => {
  for (const id of ['old-done', 'old-held', 'new-done', 'old-open']) await receive(db, message(id));
  for (const id of ['old-done', 'new-done']) await advance(db, id, ['received'], 'acknowledged', { resources: [id] });
  const held = (await readEntry(db, 'old-held'))!;
  await advance(db, 'old-held', ['received'], 'quarantined');
  await quarantine(db, held, [{ code: 'UNKNOWN_PLACE', message: 'no such place' }]);
  await advance(db, 'old-held', ['quarantined'], 'acknowledged');
  await age('gateway_inbox', 'updated_at', `id in ('old-done', 'old-held', 'old-open')`, 400);
  const sent = await addOutbound(db, { organizationId: 'org-a', inboxId: 'old-done', kind: 'aperak', name: 'old-done.aperak.edi', content: 'APERAK for Jan Kowalski' });
  const waiting = await addOutbound(db, { organizationId: 'org-a', inboxId: 'old-held', kind: 'aperak', name: 'old-held.aperak.edi', content: 'APERAK waiting' });
  await markDelivered(db, sent.id);
  await age('gateway_outbox', 'created_at', 'true', 400);

  expect(await eraseOldContent(db, 365)).toEqual({ inbox: 1, outbox: 1 });
  const done = (await readEntry(db, 'old-done'))!;
  expect({ content: done.content, digest: done.contentSha256, status: done.status, result: done.result }).toEqual({ content: '', digest: 'sha-old-done', status: 'acknowledged', result: { resources: ['old-done'] } });
  for (const id of ['old-held', 'new-done', 'old-open']) expect((await readEntry(db, id))!.content).toContain('Jan Kowalski');
  const outbox = await db.query<{ id: number; content: string }>(`select id, content from gateway_outbox order by id`);
  expect(outbox.rows).toEqual([{ id: sent.id, content: '' }, { id: waiting.id, content: 'APERAK waiting' }]);
  // The same message received again is still recognized by its id: nothing new, nothing restored.
  expect((await receive(db, message('old-done'))).created).toBe(false);
  expect((await readEntry(db, 'old-done'))!.content).toBe('');
  expect(await eraseOldContent(db, 365)).toEqual({ inbox: 0, outbox: 0 });
});

describe('storable text (what the fuzz run found: a quoted NUL or lone surrogate failed the step that stores a result)', () => {
  it('replaces NUL and lone surrogates with U+FFFD, and keeps every well-formed character', () => {
    expect(storable('a\u0000b\ud800c\udc00d😀é')).toBe('a\uFFFDb\uFFFDc\uFFFDd😀é');
    expect(JSON.parse(storableJson({ document: { subscriptionID: 'UQ`\ud800Um' }, list: ['\u0000'] }))).toEqual({ document: { subscriptionID: 'UQ`\uFFFDUm' }, list: ['\uFFFD'] });
  });
});
