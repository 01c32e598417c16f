// Pure unit tests of domain/units.ts.
import { fromBase, toBase, UNIT_CODES } from '../../domain/units';

describe('units', () => {
  it('lists the UNECE Recommendation 20 codes per dimension', () => {
    expect(UNIT_CODES).toEqual({
      mass: ['KGM', 'TNE', 'GRM', 'LBR'],
      volume: ['MTQ', 'LTR', 'DMQ', 'FTQ'],
      length: ['MTR', 'CMT', 'MMT', 'FOT'],
    });
  });

  it('converts to kg, m³ and m exactly for whole quantities', () => {
    expect(toBase({ value: 1, unitCode: 'TNE' }, 'mass')).toBe(1000);
    expect(toBase({ value: 1000, unitCode: 'LTR' }, 'volume')).toBe(1);
    expect(toBase({ value: 100, unitCode: 'CMT' }, 'length')).toBe(1);
    expect(toBase({ value: 1000, unitCode: 'MMT' }, 'length')).toBe(1);
    expect(toBase({ value: 2500, unitCode: 'GRM' }, 'mass')).toBe(2.5);
    expect(toBase({ value: 3, unitCode: 'DMQ' }, 'volume')).toBe(0.003);
    expect(toBase({ value: 7, unitCode: 'KGM' }, 'mass')).toBe(7);
    expect(toBase({ value: 0, unitCode: 'MTQ' }, 'volume')).toBe(0);
  });

  it('uses the exact international pound, cubic foot and foot', () => {
    expect(toBase({ value: 1, unitCode: 'LBR' }, 'mass')).toBe(0.45359237);
    expect(toBase({ value: 1, unitCode: 'FTQ' }, 'volume')).toBe(0.028316846592);
    expect(toBase({ value: 1, unitCode: 'FOT' }, 'length')).toBe(0.3048);
    expect(toBase({ value: 10, unitCode: 'FOT' }, 'length')).toBe(3.048);
  });

  it('converts back from base units', () => {
    expect(fromBase(1000, 'TNE', 'mass')).toEqual({ value: 1, unitCode: 'TNE' });
    expect(fromBase(1, 'LTR', 'volume')).toEqual({ value: 1000, unitCode: 'LTR' });
    expect(fromBase(0.3048, 'FOT', 'length')).toEqual({ value: 1, unitCode: 'FOT' });
    expect(fromBase(toBase({ value: 40, unitCode: 'LBR' }, 'mass'), 'LBR', 'mass').value).toBeCloseTo(40, 12);
  });

  it('throws on a code of another dimension or an unknown code', () => {
    expect(() => toBase({ value: 1, unitCode: 'LTR' }, 'mass')).toThrow(/not a mass unit/);
    expect(() => toBase({ value: 1, unitCode: 'KGM' }, 'length')).toThrow(RangeError);
    expect(() => fromBase(1, 'MTR', 'volume')).toThrow(/not a volume unit/);
    expect(() => toBase({ value: 1, unitCode: 'XYZ' }, 'mass')).toThrow(RangeError);
    expect(() => toBase({ value: 1, unitCode: 'toString' }, 'mass')).toThrow(RangeError);
  });

  it('refuses negative and non-finite values', () => {
    expect(() => toBase({ value: -1, unitCode: 'KGM' }, 'mass')).toThrow(RangeError);
    expect(() => toBase({ value: Number.NaN, unitCode: 'KGM' }, 'mass')).toThrow(RangeError);
    expect(() => toBase({ value: Infinity, unitCode: 'KGM' }, 'mass')).toThrow(RangeError);
    expect(() => fromBase(-0.5, 'KGM', 'mass')).toThrow(RangeError);
  });
});

describe('the JSON Schemas and domain/units.ts agree', () => {
  it('accept exactly the unit codes the converter knows, per dimension', () => {
    const logistics = require('../../schemas/logistics.json');
    const { UNIT_CODES: codes } = require('../../domain/units');
    expect(logistics.$defs.Mass.properties.unitCode.enum).toEqual(codes.mass);
    expect(logistics.$defs.Volume.properties.unitCode.enum).toEqual(codes.volume);
    expect(logistics.$defs.Length.properties.unitCode.enum).toEqual(codes.length);
  });
});
