// The console's older drawing helpers, as DOM built from data (textContent only: nothing the broker
// returns is ever parsed as HTML): `el()` for the skeletons of sections a module mounts its
// components in, and words shared by the views (a proposal's state, a currency, a local time).
// The views themselves are components (./ui.js: console/proposal-view.js and the others).
import { nameOf, reasonOf, statusOf, t, when } from './format.js';

const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? '' : v);
  }
  for (const child of children.flat()) if (child !== undefined && child !== null && child !== false) node.append(child instanceof Node ? child : String(child));
  return node;
};
export { el };

/**
 * Where the proposal stands, from the reader's side, in words that never contradict its state: who
 * still has to decide and until when while open; "matched" once both accepted (a match is not
 * binding: a tender agreed makes the commitment); else the final state.
 */
export function proposalState(p, me, names) {
  const mine = p.offerOwnerOrganizationId === me ? 'offer' : 'request';
  const partner = nameOf(mine === 'offer' ? p.requestOwnerOrganizationId : p.offerOwnerOrganizationId, names);
  if (p.status === 'accepted') return t('proposal.state.matched');
  if (p.status !== 'open') return t('proposal.state.closed', { status: statusOf(p.status) });
  if (p.decisionState === 'COMMITTING') return t('proposal.state.committing');
  const ours = (p.decisions ?? []).some((d) => d.organizationId === me);
  const theirs = (p.decisions ?? []).some((d) => d.organizationId !== me);
  const until = when(p.validUntil);
  if (ours) return t('proposal.state.waitingForThem', { partner, until });
  if (theirs) return t('proposal.state.theyAccepted', { partner, until });
  return t('proposal.state.open', { until });
}

/** A currency as the planner writes it: "€", "zł", else its code. */
export function currencyName(code) {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: code, currencyDisplay: 'narrowSymbol' }).formatToParts(0).find((p) => p.type === 'currency')?.value ?? code;
  } catch {
    return code;
  }
}

/** A time as the date-and-time fields hold it (console/datetime.js: the browser's zone, to the minute). */
export const localInput = (date) => (date ? new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : '');

export { reasonOf };
