// Crypto-shredding (core/personal-data.ts): personal values sealed under their record's key,
// opened on the way out, unreadable for good once the key is destroyed; what a payload's paths
// seal; and a sealed value opened by an independent AES-GCM (WebCrypto), not only by ourselves.
import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { holdsPersonalData, PersonalData, PersonalDataKeys, subjectOf } from '../../core/personal-data';

const folder = () => mkdtempSync(join(tmpdir(), 'pcx-pd-'));
const HANDOVER = '0190a8c4-7d2e-7c1a-9f00-000000000001';
const delivery = {
  commitmentId: 'c-1',
  package: {
    contacts: [{ role: 'dispatch', name: 'Anna Nowak', phone: '+48 600 100 200' }],
    stops: [
      { sequence: 1, location: { unlocode: 'PLWAW' }, contacts: [{ role: 'pickup', name: 'Jan Kowalski', email: 'jan@example.pl' }] },
      { sequence: 2, location: { unlocode: 'DEHAM' } },
    ],
    instructions: 'Anna Nowak is not personal data here: only the listed paths are',
  },
};

test('the paths of a handover are sealed, nothing else; opened back to the delivery as sent', () => {
  const pd = new PersonalData(new PersonalDataKeys(folder()));
  const sealed = pd.sealFields('execution-handover', HANDOVER, delivery);
  const text = JSON.stringify(sealed);
  expect(text).not.toMatch(/600 100 200|Kowalski|jan@example/);
  expect(JSON.stringify(sealed.package.contacts)).not.toContain('Nowak');
  expect(sealed.package.contacts[0].name).toMatch(new RegExp(`^pcx-pd:v1:execution-handover\\.${HANDOVER}:`));
  expect(sealed.package.contacts[0].role).toBe('dispatch');
  expect(sealed.package.instructions).toBe(delivery.package.instructions);
  expect(sealed.package.stops[1]).toEqual(delivery.package.stops[1]);
  expect(holdsPersonalData(text)).toBe(true);
  expect(pd.openAll(sealed)).toEqual(delivery);
  expect(JSON.parse(pd.openText(text))).toEqual(delivery);
  // Sealing again seals alike (a retried command's fingerprint; a PATCH that changes nothing).
  expect(pd.sealFields('execution-handover', HANDOVER, delivery)).toEqual(sealed);
  // A caller that sends something shaped like a sealed value has it sealed like any text, and reads it back as sent.
  const planted = pd.sealFields('user', 'u-5', { name: sealed.package.contacts[0].name });
  expect(planted.name).not.toBe(sealed.package.contacts[0].name);
  expect(pd.openAll(planted)).toEqual({ name: sealed.package.contacts[0].name });
  // Kinds without personal data pass through.
  expect(pd.sealFields('capacity-offer', HANDOVER, delivery)).toBe(delivery);
});

test("a user's name is trimmed, then sealed; an empty one is left for the machine to refuse", () => {
  const pd = new PersonalData(new PersonalDataKeys(folder()));
  const sealed = pd.sealFields('user', 'u-1', { userId: 'anna', name: '  Anna Nowak ', roles: ['planner'] });
  expect(sealed.name).not.toContain('Anna');
  expect(pd.openAll(sealed)).toEqual({ userId: 'anna', name: 'Anna Nowak', roles: ['planner'] });
  expect(pd.sealFields('user', 'u-1', { userId: 'anna', name: '   ' }).name).toBe('   ');
});

test("destroying a record's key makes every copy of its values unreadable: the contact goes from its list, the name from its record", () => {
  const dir = folder();
  const pd = new PersonalData(new PersonalDataKeys(dir));
  const sealed = pd.sealFields('execution-handover', HANDOVER, delivery);
  const user = pd.sealFields('user', 'u-2', { userId: 'jan', name: 'Jan' });
  const copy = JSON.stringify(sealed); // an old row version, a backup
  expect(readdirSync(dir).sort()).toEqual([`execution-handover.${HANDOVER}.key`, 'user.u-2.key']);
  const keyFile = join(dir, `execution-handover.${HANDOVER}.key`);
  const keyText = readFileSync(keyFile, 'utf8');
  expect(pd.shred('execution-handover', HANDOVER)).toBe(true);
  expect(existsSync(keyFile)).toBe(false);
  expect(pd.shred('execution-handover', HANDOVER)).toBe(false);
  const opened = pd.openAll(JSON.parse(copy));
  expect(opened.package.contacts).toEqual([]);
  expect(opened.package.stops[0].contacts).toEqual([]);
  expect(opened.package.stops[0].sequence).toBe(1);
  expect(JSON.stringify(opened)).not.toContain('pcx-pd:');
  // Another process with the same folder, and a fresh one: neither opens it; the user's key is untouched.
  const other = new PersonalData(new PersonalDataKeys(dir));
  expect(other.open(sealed.package.contacts[0].name)).toBeUndefined();
  expect(other.openAll(user)).toEqual({ userId: 'jan', name: 'Jan' });
  expect(pd.shred('user', 'u-2')).toBe(true);
  expect(pd.openAll(user)).toEqual({ userId: 'jan' }); // at once in the process that destroyed it
  expect(new PersonalData(new PersonalDataKeys(dir)).openAll(user)).toEqual({ userId: 'jan' }); // and in any other (one that read it before: within 2 s)
  // A new key for the same record is another key: the old values stay unreadable.
  pd.sealFields('execution-handover', HANDOVER, delivery);
  expect(readFileSync(keyFile, 'utf8')).not.toBe(keyText);
  expect(new PersonalData(new PersonalDataKeys(dir)).open(sealed.package.contacts[0].name)).toBeUndefined();
});

test('a value bound to its record: moved to another record, or changed, it does not open', () => {
  const pd = new PersonalData(new PersonalDataKeys(folder()));
  const value = pd.seal(subjectOf('user', 'u-1'), 'Anna');
  pd.seal(subjectOf('user', 'u-9'), 'x');
  expect(pd.open(value.replace('user.u-1', 'user.u-9'))).toBeUndefined();
  const body = value.split(':').pop()!;
  // A character of the first group of four (all of its bits are data; a last character's low bits may be padding).
  const flipped = body.slice(0, 2) + (body[2] === 'A' ? 'B' : 'A') + body.slice(3);
  expect(pd.open(value.replace(body, flipped))).toBeUndefined();
  expect(pd.open('not sealed')).toBeUndefined();
  expect(pd.openValue('not sealed')).toBe('not sealed');
});

test('two processes sealing the first value of a record at once share one key', () => {
  const dir = folder();
  const a = new PersonalData(new PersonalDataKeys(dir));
  const b = new PersonalData(new PersonalDataKeys(dir));
  const fromA = a.seal('user.u-3', 'Ola');
  const fromB = b.seal('user.u-3', 'Ola');
  expect(fromB).toBe(fromA);
  expect(readdirSync(dir)).toEqual(['user.u-3.key']);
});

test('an independent AES-GCM (WebCrypto) opens a sealed value with the key from the folder', async () => {
  const dir = folder();
  const pd = new PersonalData(new PersonalDataKeys(dir));
  const value = pd.seal('user.u-4', 'Zofia Wyszyńska');
  const [, , subject, iv, body] = value.split(':');
  const key = Buffer.from(readFileSync(join(dir, 'user.u-4.key'), 'utf8').trim(), 'base64');
  const enc = createHmac('sha256', key).update('pcx personal data enc').digest();
  const cryptoKey = await crypto.subtle.importKey('raw', enc, 'AES-GCM', false, ['decrypt']);
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: Buffer.from(iv, 'base64url'), additionalData: Buffer.from(subject) }, cryptoKey, Buffer.from(body, 'base64url'));
  expect(Buffer.from(plain).toString('utf8')).toBe('Zofia Wyszyńska');
});
