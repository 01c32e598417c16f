// The exchange's directory (GET /directory): the organizations the operator lists
// (`directoryListing.listed`, domain/organization.ts) that are active now, from the organizations
// read model. The search itself is in api/directory.ts.
import type { Db } from '../core/db';
import { standingOf, type Organization } from '../domain/organization';

/** Every listed organization that takes part in the exchange at this moment. */
export async function listedOrganizations(db: Db): Promise<Organization[]> {
  const { rows } = await db.query<{ doc: Organization }>(`select doc from organizations where doc->'directoryListing'->>'listed' = 'true'`);
  return rows.map((r) => r.doc).filter((o) => standingOf(o) === 'active');
}
