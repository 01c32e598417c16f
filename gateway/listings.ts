// What the exchange holds a listing to when it is published, as far as the gateway checks it
// before creating anything (a message the exchange would refuse to publish is quarantined with the
// reason, never left behind as a draft): the same numbers as the broker's rules, which the unit
// tests compare with domain/listing.ts (the gateway talks to the broker only through its API and
// does not load its domain code).

/** The least time a match needs before a listing's window ends (domain/listing.ts EXECUTION_LEAD_MINUTES). */
export const EXECUTION_LEAD_MINUTES = 60;
