// An organization's EPCIS settings (config/gateway.json, `epcis`).
export interface EpcisSettings {
  /** The GLNs (13 digits) of its own parties and locations; a document naming another served organization's is quarantined. */
  glns?: readonly string[];
}
