// Which organizations a resource names, whatever the implementation calls the members: any member
// ending in OrganizationId, or an array ending in OrganizationIds (the owner, the parties, a visibility list).

/** Whether a resource names one of these organizations as its owner or a party (any member ending in OrganizationId(s)). */
export function namesOrganization(item: unknown, organizationIds: string[]): boolean {
  const found = new Set<string>();
  const visit = (node: unknown, key: string, depth: number) => {
    if (depth > 3 || node === null || typeof node !== 'object') {
      if (typeof node === 'string' && /organizationid$/i.test(key)) found.add(node);
      return;
    }
    if (Array.isArray(node)) {
      for (const x of node) visit(x, /organizationids$/i.test(key) ? key.replace(/s$/i, '') : key, depth + 1);
      return;
    }
    for (const [k, v] of Object.entries(node)) visit(v, k, depth + 1);
  };
  visit(item, '', 0);
  return organizationIds.some((id) => found.has(id));
}
