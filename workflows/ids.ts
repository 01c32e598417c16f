// New ids inside workflow code: the project's uuid7 (domain/ids.ts) fed from the workflow's seeded
// random (uuid4 of the workflow API), so that a replay of the history makes the same id.
import { uuid4 } from '@temporalio/workflow';
import { uuid7 } from '../domain/ids';

/** A UUIDv7 made in a workflow: deterministic under replay. */
export function workflowUuid7(): string {
  return uuid7FromUuid4(uuid4(), Date.now());
}

/**
 * The id a workflow makes from one uuid4 of its seeded random: the clock's milliseconds, version 7,
 * then the uuid4's hex digits 13 to 15, the variant, its digits 17 to 31. Flows in flight when
 * this code is deployed replay with it, so the layout is the one their recorded ids have
 * (test/unit/ids.test.ts holds it); the uuid package carries it in `seq` and `random`.
 */
export function uuid7FromUuid4(uuid: string, msecs: number): string {
  const hex = uuid.replace(/-/g, '');
  const n = (i: number) => parseInt(hex[i], 16);
  const byte = (i: number) => parseInt(hex.slice(i, i + 2), 16);
  const tenth = byte(20);
  // seq fills the 32 bits after the version: digits 13-15, 6 bits after the variant, digits 18-19, 6 bits of byte 10.
  const seq = (n(13) << 28) | (n(14) << 24) | (n(15) << 20) | ((((n(16) & 0x3) << 4) | n(17)) << 14) | (n(18) << 10) | (n(19) << 6) | (tenth >> 2);
  const random = new Uint8Array(16);
  random[10] = tenth;
  for (let i = 11; i < 16; i++) random[i] = byte(2 * i);
  return uuid7(random, { msecs, seq });
}
