// How offers and requests are shared with partners (gates 5, 7 and 8): an active relationship in
// force now between owner and viewer, granting the resource's read scope, and the resource's own
// visibility including the viewer, in one of the resource's partnerStatuses (its definition in
// workflows/). One definition, used by the single-resource gates (TypeScript), by lists (SQL),
// by the event audience and by the event feed, so the four cannot drift apart; the isolation
// tests exercise every path. "In force" is inForceSql, the only definition of it.

export interface Visibility {
  mode: 'partners' | 'groups' | 'open';
  organizationIds?: string[];
  groups?: string[];
}

/** Gate 8 on one resource, given the relationship's groups. 'open' means every partner. */
export function visibleTo(visibility: Visibility | undefined, relationshipGroups: string[], viewer: string): boolean {
  if (!visibility) return false;
  if (visibility.mode === 'open') return true;
  if (visibility.mode === 'partners') return (visibility.organizationIds ?? []).includes(viewer);
  return (visibility.groups ?? []).some((g) => relationshipGroups.includes(g));
}

/**
 * SQL: relationship `r` is active and in force at `at` (effectiveFrom <= at < effectiveUntil, rule
 * 5). `at` is a query parameter holding the broker's clock (nowParam), not the database's now():
 * the workflows' timers and the API read one clock, whatever the database host's says (and the
 * time-skipping harness moves that one clock).
 */
export function inForceSql(r: string, at: string): string {
  return `${r}.status = 'active'
    and (${r}.effective_from is null or ${r}.effective_from <= ${at}::timestamptz)
    and (${r}.effective_until is null or ${r}.effective_until > ${at}::timestamptz)`;
}

/** The broker's clock as the parameter inForceSql takes. */
export const nowParam = (): string => new Date().toISOString();

/** SQL: relationship `r` joins the organizations given as SQL expressions a and b. */
export function betweenSql(r: string, a: string, b: string): string {
  return `((${r}.requesting_organization_id = ${a} and ${r}.accepting_organization_id = ${b})
      or (${r}.requesting_organization_id = ${b} and ${r}.accepting_organization_id = ${a}))`;
}

/**
 * SQL: the listing row `x` is visible to partner `viewer` (gates 5, 7, 8). Uses the read-model
 * columns visibility_mode, visibility_organization_ids and visibility_groups.
 */
export function partnerVisibleSql(x: string, viewer: string, scope: string, at: string): string {
  return `exists (select 1 from partner_relationships r
    where ${inForceSql('r', at)} and ${betweenSql('r', `${x}.owner_organization_id`, viewer)}
      and r.doc->'scopes' ? ${scope}
      and (${x}.visibility_mode = 'open'
        or (${x}.visibility_mode = 'partners' and ${viewer} = any(${x}.visibility_organization_ids))
        or (${x}.visibility_mode = 'groups' and ${x}.visibility_groups && array(select jsonb_array_elements_text(r.doc->'visibilityPolicy'->'groups')))))`;
}
