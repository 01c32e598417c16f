// An organization's EPCIS settings (config/gateway.json, `epcis`): what its track-and-trace's
// events mean where the CBV and the message do not say it (docs/adapters.md, "GS1 EPCIS 2.0").
import type { Milestone } from '../baseline';

export interface EpcisSettings {
  /**
   * GLNs (13 digits) of the parties and locations its events name as its own or its partners'
   * (its depots, a shipper's dock it loads at). A document naming a GLN of another organization
   * the gateway serves is quarantined (`NAMES_OTHER_ORGANIZATION`), unless the organization lists
   * that GLN here or in its `places`: then both use it.
   */
  glns?: readonly string[];
  /**
   * The business transaction types whose values name its movements (references the gateway finds
   * a movement by): CBV types bare (`bol`, `desadv`, `po`), others by their URI as written.
   * Default: `bol` and `desadv`. GINC and GSIN among an event's EPCs are always references.
   */
  referenceTypes?: readonly string[];
  /**
   * Business steps read otherwise than the gateway's table (gateway/epcis/events.ts): a CBV step
   * (bare) or the organization's own step URI to a milestone, or to null (not a milestone).
   */
  bizSteps?: Readonly<Record<string, Milestone | null>>;
}
