// The payload codec (core/payload-codec.ts): Temporal payloads sealed with the key ring, opened
// with any key of it (rotation), passed through when not sealed, refused when tampered with; the
// SDK's own converter reads what the codec opens.
import { randomBytes } from 'node:crypto';
import { DefaultPayloadConverter, type Payload } from '@temporalio/common';
import { isSealed, KeyRingPayloadCodec } from '../../core/payload-codec';
import { KeyRing, StaticKeyProvider } from '../../core/secrets';

const converter = new DefaultPayloadConverter();
const key = (id: string) => ({ id, key: randomBytes(32) });
const command = { name: 'create', payload: { contact: { name: 'Anna Nowak', phone: '+48 600 000 000' } } };

test('sealed with the primary key: nothing of the value in clear; opened back to the same payload', async () => {
  const ring = new KeyRing(new StaticKeyProvider([key('k1')]));
  const codec = new KeyRingPayloadCodec(ring, true);
  const plain = converter.toPayload(command)!;
  const [sealed] = await codec.encode([plain]);
  expect(isSealed(sealed)).toBe(true);
  expect(Buffer.from(sealed.data!).toString()).not.toMatch(/Anna|Nowak|600 000/);
  expect(Buffer.from(sealed.data!).toString()).toMatch(/^pcx-sealed:v1:k1:/);
  const [opened] = await codec.decode([sealed]);
  expect(converter.fromPayload(opened)).toEqual(command);
  expect(Buffer.from(opened.metadata!.encoding!).toString()).toBe('json/plain');
});

test('a key added rotates: new payloads sealed with it, old ones still open; a payload not sealed passes through', async () => {
  const old = key('k1');
  const before = new KeyRingPayloadCodec(new KeyRing(new StaticKeyProvider([old])), true);
  const [sealedBefore] = await before.encode([converter.toPayload(command)!]);
  const after = new KeyRingPayloadCodec(new KeyRing(new StaticKeyProvider([old, key('k2')])), true);
  const [sealedAfter] = await after.encode([converter.toPayload(command)!]);
  expect(Buffer.from(sealedAfter.data!).toString()).toMatch(/^pcx-sealed:v1:k2:/);
  const plain = converter.toPayload('written before encryption')!;
  const opened = await after.decode([sealedBefore, sealedAfter, plain]);
  expect(opened.map((p) => converter.fromPayload(p))).toEqual([command, command, 'written before encryption']);
});

test('off: payloads written as they are, sealed ones still opened; a tampered or foreign payload is refused', async () => {
  const ring = new KeyRing(new StaticKeyProvider([key('k1')]));
  const off = new KeyRingPayloadCodec(ring, false);
  const plain = converter.toPayload(command)!;
  expect(await off.encode([plain])).toEqual([plain]);
  const [sealed] = await new KeyRingPayloadCodec(ring, true).encode([plain]);
  expect(converter.fromPayload((await off.decode([sealed]))[0])).toEqual(command);
  const text = Buffer.from(sealed.data!).toString();
  const tampered: Payload = { ...sealed, data: new TextEncoder().encode(`${text.slice(0, -3)}AAA`) };
  await expect(off.decode([tampered])).rejects.toThrow();
  const foreign = new KeyRingPayloadCodec(new KeyRing(new StaticKeyProvider([key('k1')])), true);
  await expect(foreign.decode([sealed])).rejects.toThrow();
});
