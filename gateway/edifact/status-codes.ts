// The code tables of profile "IFTSTA D.04A" (docs/adapters.md has them as tables):
// - STS C555 4405 "Status description code": in an IFTSTA of status category 1 (transport) the
//   directory says "For transport status, use UN/ECE Recommendation 24" (UNTDID D.04A, C555).
//   Rec 24 "Trade and Transport Status Codes", revision 6 (2017), as UN/CEFACT keeps it:
//   https://github.com/uncefact/vocab-codes, CLR/Rec24/current/code-list.csv (snapshot
//   afbf662ba3fd24bc3215aceae33a80dfcbe5cc0a, file last changed in
//   ac0d623f714486695af756b244388f3304402ba9, blob 532eda82…: 345 codes, 1 to 379). UNCL 4405's
//   own list (To be done, Done, …) is for other status categories and is not read.
// - STS C556 9013 "Status reason description code": UNTDID D.04A (UNCL), as the vendored
//   directory's source has it (php-edifact/edifact-mapping src/Mapping/D04A/codes.xml, snapshot
//   c875cda084bcfa6d885652756077464c12d78c72): the transport entries.
// The two lists are data in status-codes.json; this file holds what the mapping reasons with.
// Only the entries the mapping uses carry a name; every other Rec 24 code is known by its number
// (REC24_CODES) and has no milestone: such a status is listed, not recorded.
import type { Milestone } from '../baseline';
// The two code lists as data (status-codes.json: `rec24`, the Rec 24 codes read as milestones,
// and `reasons`, the UNCL 9013 transport reasons), typed here; test/unit/gateway-iftsta.test.ts
// checks every milestone named there is one of the baseline's.
import TABLES from './status-codes.json';

/** Every code of Rec 24 revision 6, as ranges (codes 42, 43, 52, 55, 56, 122, 160, … are not assigned). */
const REC24_RANGES: ReadonlyArray<readonly [number, number]> = [
  [1, 41], [44, 51], [53, 54], [57, 121], [123, 159], [161, 172], [174, 216], [218, 220], [222, 222], [224, 225], [227, 229], [231, 236], [238, 243],
  [247, 248], [250, 251], [253, 256], [258, 258], [260, 260], [265, 267], [269, 288], [291, 292], [295, 295], [297, 302], [306, 379],
];

/** Whether `code` is a code of Rec 24 revision 6 (as written in 4405: digits, no leading zero). */
export function isRec24(code: string): boolean {
  if (!/^[1-9]\d{0,2}$/.test(code)) return false;
  const n = Number(code);
  return REC24_RANGES.some(([from, to]) => n >= from && n <= to);
}

/**
 * What a status place (the LOC of the status group, by its qualifier 3227) says about an
 * arrival: the pick-up and delivery sets are those the IFTMIN mapping reads as the load's places
 * (gateway/edifact/iftmin.ts) plus 176 (pick-up location) and 20 (ultimate destination);
 * transhipment (13) and routing (92) places are on the way.
 */
export const ARRIVAL_PLACES: Readonly<Record<'atPickup' | 'atDelivery' | 'inTransit', readonly string[]>> = {
  atPickup: ['9', '5', '10', '176'],
  atDelivery: ['7', '11', '12', '8', '20'],
  inTransit: ['13', '92'],
};

export interface StatusCode {
  /** The Rec 24 name. */
  name: string;
  /** The baseline milestone it is read as; `arrival`: code 1, whose milestone is its place's (ARRIVAL_PLACES). */
  milestone: Milestone | 'arrival';
  /** A final status the gateway may report as an execution outcome (docs/adapters.md, "Outcomes"). */
  outcome?: 'completed' | 'failed';
}

/**
 * Rec 24 codes read as a baseline milestone (inbound). Chosen where the code's meaning is the
 * milestone's, for any mode; a code that is a milestone only in some modes (48 loading completed,
 * 29 unloaded: at a transhipment as well as at the ends) or only some of the time (45 consignee
 * informed) is not here and so is listed, not recorded.
 */
export const REC24: Readonly<Record<string, StatusCode>> = TABLES.rec24 as Record<string, StatusCode>;

/**
 * The Rec 24 code each milestone is told to a shipper with (outbound), and the LOC qualifier of
 * its place: an arrival (code 1) says where by its qualifier even without a place id (176 pick-up
 * location, 7 place of delivery); any other milestone's place is where the goods are (14).
 * Each is read back as the same milestone (the round trip of the tests).
 */
export const MILESTONE_CODE: Readonly<Record<Milestone, { code: string; place: string }>> = {
  assigned: { code: '6', place: '14' },
  atPickup: { code: '1', place: '176' },
  pickedUp: { code: '13', place: '14' },
  inTransit: { code: '31', place: '14' },
  delayed: { code: '20', place: '14' },
  atDelivery: { code: '1', place: '7' },
  delivered: { code: '21', place: '14' },
  failed: { code: '23', place: '14' },
  cancelled: { code: '7', place: '14' },
  disputed: { code: '311', place: '14' },
};

/** UNCL 9013 (D.04A) status reasons, the transport entries: a reason code is told by its name. */
export const REASONS: Readonly<Record<string, string>> = TABLES.reasons;

/**
 * UNCL 9013 reasons that say a movement is late: an en route or departure status (inTransit)
 * carrying one of them reports a delay, and is read as `delayed` with that reason (and its estimate).
 */
export const DELAY_REASONS: ReadonlySet<string> = new Set(['8', '10', '17', '18', '20', '23', '31', '34', '35', '36', '50', '51', '58', '63', '88']);

/**
 * RFF qualifiers (1153) read as references of the movement: those that name one consignment or
 * one transport. Others (IT internal customer number, OP original purchase order, AAN delivery
 * schedule, VON voyage, …) name something wider or narrower and are not offered for the lookup,
 * so that a coincidence never finds a movement.
 */
export const REFERENCE_QUALIFIERS: readonly string[] = ['CU', 'CN', 'BM', 'BN', 'AAS', 'FF', 'SRN', 'AAO', 'ON', 'DQ', 'AWB', 'MB', 'AAM', 'CRN'];
