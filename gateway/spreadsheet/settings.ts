// An organization's spreadsheet settings (config/gateway.json, `spreadsheet`): which column of its
// daily export holds what, and what publishing an offer needs that a row does not carry.
export interface SpreadsheetSettings {
  /** Publish the offers (true) or leave them drafts. */
  publish: boolean;
  /** The column (its header text) holding each field of an offer. */
  columns: Readonly<Record<string, string>>;
}
