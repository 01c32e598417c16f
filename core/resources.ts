// Names of each resource kind in every layer: the kind (workflow, schema, events), the collection
// path of the HTTP API and the workflow id. One table, so the names cannot drift apart.
export const RESOURCE_COLLECTIONS: Record<string, string> = {
  'partner-relationship': 'partner-relationships',
  'capacity-offer': 'capacity-offers',
  'load-request': 'load-requests',
};

/** The scope a token needs to read each kind, in reads, lists and the event feed alike. */
export const READ_SCOPES: Record<string, string> = {
  'partner-relationship': 'relationships:manage',
  'capacity-offer': 'capacity:read',
  'load-request': 'loads:read',
};

export function resourcePath(kind: string, id: string): string {
  return `${RESOURCE_COLLECTIONS[kind]}/${id}`;
}

/** Workflow id of a resource: `<kind>/<uuid>`, so an operator can type it in the Temporal UI. */
export function workflowId(kind: string, id: string): string {
  return `${kind}/${id}`;
}
