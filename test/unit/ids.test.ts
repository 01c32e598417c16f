// The one uuid7 (domain/ids.ts) and the ids workflows make with it (workflows/ids.ts).
import { isUuid, uuid7 } from '../../domain/ids';
import { uuid7FromUuid4 } from '../../workflows/ids';
import { randomUUID } from 'node:crypto';

/** The layout of ids in recorded histories: what workflows made before they used the uuid package. */
function recordedLayout(uuid4: string, ms: number): string {
  const hex = uuid4.replace(/-/g, '');
  const time = ms.toString(16).padStart(12, '0').slice(-12);
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  const v = `${time}7${hex.slice(13, 16)}${variant}${hex.slice(17, 32)}`;
  return `${v.slice(0, 8)}-${v.slice(8, 12)}-${v.slice(12, 16)}-${v.slice(16, 20)}-${v.slice(20, 32)}`;
}

describe('uuid7', () => {
  it('makes version-7 ids of the RFC 9562 variant, ordered by time', () => {
    const a = uuid7();
    const b = uuid7();
    expect(isUuid(a)).toBe(true);
    expect(a[14]).toBe('7');
    expect('89ab').toContain(a[19]);
    expect(a.slice(0, 8) <= b.slice(0, 8)).toBe(true);
  });

  it('in workflows, gives the id a recorded history holds for the same random and clock', () => {
    for (let i = 0; i < 2000; i++) {
      const u = randomUUID();
      const ms = Date.UTC(2026, 0, 1) + i * 7919;
      expect(uuid7FromUuid4(u, ms)).toBe(recordedLayout(u, ms));
    }
  });
});
