// domain/views.ts: a command's snapshot is answered as the resource's document (docs/decisions.md,
// "A command's answer is the resource document, never the workflow state").
import { viewOf } from '../../domain/views';
import { executionReference } from '../../domain/execution-reference';

describe('viewOf', () => {
  const snapshot = {
    id: '01912f6e-6a44-7c3a-9d3e-0c5b6a1e2f3a',
    resourceVersion: 2,
    ownerOrganizationId: 'org-carrier',
    createdAt: '2025-01-01T10:00:00Z',
    updatedAt: '2025-01-01T11:00:00Z',
    status: 'linked',
    participatingOrganizationIds: ['org-carrier', 'org-shipper'],
    updates: [{ id: 'u-1' }],
    outcomes: [{ id: 'o-1' }],
  };

  it("applies the resource's document projection before disclosure, for its owner too", () => {
    const owner = viewOf(executionReference, snapshot, { organizationId: 'org-carrier' });
    expect(owner).not.toHaveProperty('updates');
    expect(owner).not.toHaveProperty('outcomes');
    expect(owner).toMatchObject({ id: snapshot.id, status: 'linked', participatingOrganizationIds: snapshot.participatingOrganizationIds });
    const participant = viewOf(executionReference, snapshot, { organizationId: 'org-shipper' });
    expect(participant).not.toHaveProperty('updates');
    expect(participant).toMatchObject({ status: 'linked' });
  });
});
