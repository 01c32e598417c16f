// The baseline milestones of the specification (ExecutionUpdate): the words every format's
// status is read into and told in. A module of its own, below the formats and their settings.
export const MILESTONES = ['assigned', 'atPickup', 'pickedUp', 'inTransit', 'delayed', 'atDelivery', 'delivered', 'failed', 'cancelled', 'disputed'] as const;
export type Milestone = (typeof MILESTONES)[number];
