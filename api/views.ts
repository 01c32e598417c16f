// Gate 9, field disclosure: what each audience sees of a resource, in reads, lists and events
// alike. Events carry the same projection as the reads because both call these functions.
export type Viewer = string;

const views: Record<string, (doc: any, viewer: Viewer) => unknown> = {
  // Both parties see the whole relationship.
  'partner-relationship': (doc) => doc,
};

export function viewOf(kind: string, doc: any, viewer: Viewer): unknown {
  const view = views[kind];
  if (!view) throw new Error(`no view for ${kind}`);
  return view(doc, viewer);
}

/** A stored CloudEvent as one organization may read it: the data is that organization's view. */
export function eventView(kind: string, cloudevent: any, viewer: Viewer): unknown {
  return cloudevent.data === undefined ? cloudevent : { ...cloudevent, data: viewOf(kind, cloudevent.data, viewer) };
}
