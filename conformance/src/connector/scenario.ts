// The scenario protocol: how the kit tells a connector under test what to do. The kit writes a
// scenario (JSON, below) to a file and runs the connector's command with its path in the
// environment variable PCX_SCENARIO; the connector does what the steps say, as its own system
// would have decided to (a carrier publishing a truck it has), and nothing the scenario does not
// ask for. The kit plays the counterpart organization through the same broker and judges the
// connector by what it sent (docs/conformance.md, "Scenarios").
import { randomUUID } from 'node:crypto';

export type ConnectorProfile = 'publisher' | 'consumer' | 'outcome-provider' | 'full';

/** Publish capacity: one truck, free at `origin` in `availableInHours` for `availableForHours`. */
export interface PublishCapacityStep {
  action: 'publishCapacity';
  origin: string;
  destination: { kind: 'unlocode'; code: string };
  availableInHours: number;
  availableForHours: number;
  bodyType: string;
  tonnes: number;
  palletSpaces: number;
  /** Who may see the offer (visibility partners). */
  partners: string[];
  price: { amount: number; currency: string };
}

/** Accept the match proposals for the published capacity whose counterpart is `from`. */
export interface AcceptProposalsStep {
  action: 'acceptProposals';
  from: string;
}

/** Accept the tenders `from` issues for proposals accepted under the step before. */
export interface AcceptTendersStep {
  action: 'acceptTenders';
  from: string;
}

/**
 * Report the execution of the handover: import it (acknowledge), report the milestones in order,
 * then the outcome `outcome`; with `correction`, correct that outcome to the correction's status.
 */
export interface ReportExecutionStep {
  action: 'reportExecution';
  milestones: string[];
  outcome: 'completed' | 'disputed';
  correction?: { status: 'completed'; reason: string; reasonCode: string };
}

export type ScenarioStep = PublishCapacityStep | AcceptProposalsStep | AcceptTendersStep | ReportExecutionStep;

export interface Scenario {
  /** This run's id: connectors put it nowhere, the kit finds the run's resources by time and owner. */
  scenarioId: string;
  profile: ConnectorProfile;
  /** The connector's own organization. */
  organizationId: string;
  /** The organization the kit plays. */
  counterpartOrganizationId: string;
  steps: ScenarioStep[];
}

/**
 * The scenario of a profile. The connector plays the carrier (it publishes capacity); the kit the
 * shipper. Each run's truck is free at a time of its own (hundreds of hours ahead, by the run), so
 * that what earlier runs left open is not proposed in its place.
 */
export function scenarioFor(profile: ConnectorProfile, organizationId: string, counterpartOrganizationId: string): Scenario {
  const slot = 200 + Math.floor(Math.random() * 2000) * 4;
  const steps: ScenarioStep[] = [
    {
      action: 'publishCapacity',
      origin: 'DEHAM',
      destination: { kind: 'unlocode', code: 'NLRTM' },
      availableInHours: slot,
      availableForHours: 48,
      bodyType: 'curtainsider',
      tonnes: 24,
      palletSpaces: 33,
      partners: [counterpartOrganizationId],
      price: { amount: 900, currency: 'EUR' },
    },
  ];
  if (profile !== 'publisher') steps.push({ action: 'acceptProposals', from: counterpartOrganizationId });
  if (profile === 'outcome-provider' || profile === 'full') {
    steps.push(
      { action: 'acceptTenders', from: counterpartOrganizationId },
      {
        action: 'reportExecution',
        milestones: ['pickedUp', 'delivered'],
        outcome: 'disputed',
        correction: { status: 'completed', reason: 'the consignee confirmed the pallets after a recount', reasonCode: 'DISPUTE_RESOLVED' },
      },
    );
  }
  return { scenarioId: randomUUID(), profile, organizationId, counterpartOrganizationId, steps };
}

export function stepOf<A extends ScenarioStep['action']>(scenario: Scenario, action: A): Extract<ScenarioStep, { action: A }> | undefined {
  return scenario.steps.find((s) => s.action === action) as Extract<ScenarioStep, { action: A }> | undefined;
}
