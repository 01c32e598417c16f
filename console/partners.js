// Partners (the organization's admins: relationships:manage): the organization's partner
// relationships by name, what each lets the partner do in words, and the commands of its state:
// invite (create and request), accept or reject an invitation, withdraw one not yet answered,
// suspend, reactivate, terminate. The broker's refusals are shown as its problems. Drawn as
// components (./ui.js): each card keeps its typed reasons and its problem through a refresh.
import { html, render, useState } from './ui.js';
import { el } from './views.js';
import { has, nameOf, statusOf, t, when } from './format.js';
import { mountInviteForm } from './invite.js';

/** What a scope lets the partner do, in words (the relationship grants it both ways). */
export const scopeWords = (scope) => (has(`scope.${scope}`) ? t(`scope.${scope}`) : scope);
const SHARING = ['capacity:read', 'capacity:publish', 'loads:read', 'loads:publish', 'matches:read', 'matches:decide', 'tenders:read', 'tenders:publish', 'tenders:decide', 'commitments:read'];

/** The order a list of relationships is read in: what waits for an answer first, what ended last. */
const ORDER = ['requested', 'active', 'suspended', 'draft', 'terminated'];

/** One relationship: who, where it stands, what each side may do, and the commands of its state. Its problem and typed reasons are its own state. */
function Relationship({ r, state, onAct }) {
  const [problem, setProblem] = useState('');
  const [reasons, setReasons] = useState({});
  const ours = r.requestingOrganizationId === state.me;
  const otherId = ours ? r.acceptingOrganizationId : r.requestingOrganizationId;
  const other = nameOf(otherId, state.names);
  const scopes = r.status === 'active' || r.status === 'suspended' ? r.scopes : r.requestedScopes ?? r.scopes;
  const since = r.activatedAt ?? r.submittedAt ?? r.createdAt;
  const act = async (command, body) => {
    setProblem('');
    try {
      await onAct(r, command, body, t(`partners.${command}.label`, { partner: other }));
    } catch (err) {
      if (!err?.sessionEnded) setProblem(`${err?.problem?.title ?? t('problem.refused')}${err?.problem?.detail ? `: ${err.problem.detail}` : ''}`);
    }
  };
  // A command's button and, for some, a reason (the broker keeps it; the partner reads it).
  const reasoned = (command) => {
    const id = `${command}-${r.id}`;
    return html`<form class="action" onSubmit=${(e) => (e.preventDefault(), act(command, { reason: (reasons[command] ?? '').trim() || t(`partners.${command}.defaultReason`) }))}>
      <label for=${id} class="visually-hidden">${t(`partners.${command}.reasonLabel`)}</label>
      <input id=${id} placeholder=${t('partners.reason')} value=${reasons[command] ?? ''} onInput=${(e) => setReasons({ ...reasons, [command]: e.currentTarget.value })} />
      <button type="submit">${t(`partners.${command}`)}</button>
    </form>`;
  };
  const plain = (command, className) => html`<button type="button" class=${className} onClick=${() => act(command, {})}>${t(`partners.${command}`)}</button>`;
  const actions = [
    r.status === 'draft' && ours && plain('request'),
    r.status === 'requested' && !ours && plain('accept', 'accept'),
    r.status === 'requested' && !ours && plain('reject', 'reject'),
    r.status === 'requested' && ours && reasoned('withdraw'),
    r.status === 'active' && reasoned('suspend'),
    r.status === 'suspended' && plain('reactivate'),
    ['active', 'suspended'].includes(r.status) && reasoned('terminate'),
  ].filter(Boolean);
  return html`<li class=${`relationship status-${r.status}`} data-relationship=${r.id}>
    <h4>${other}<span class="muted">${` (${otherId})`}</span></h4>
    <p><strong>${statusOf(r.status)}</strong>${` · ${t(ours ? 'partners.youInvited' : 'partners.theyInvited')} · ${t('partners.since', { when: when(since) })}${r.effectiveUntil ? ` · ${t('partners.until', { when: when(r.effectiveUntil) })}` : ''}`}</p>
    <p>${`${t(r.status === 'active' ? 'partners.mayNow' : 'partners.mayLater')}: ${(scopes ?? []).map(scopeWords).join('; ') || t('partners.nothingYet')}.`}</p>
    <div class="actions">${actions}<span class="field-error" role="alert">${problem}</span></div>
  </li>`;
}

function Relationships({ relationships, failed, state, onAct }) {
  if (failed) return html`<p class="field-error">${failed}</p>`;
  if (!relationships) return '';
  const sorted = [...relationships].sort((a, b) => ORDER.indexOf(a.status) - ORDER.indexOf(b.status));
  return sorted.length
    ? html`<ul class="relationships">${sorted.map((r) => html`<${Relationship} key=${r.id} r=${r} state=${state} onAct=${onAct} />`)}</ul>`
    : html`<p class="muted">${t('partners.none')}</p>`;
}

export function createPartnersPage({ api, state, notice, onChanged }) {
  const section = document.getElementById('partners');
  section.hidden = false;
  // The list (redrawn by difference: a reason half typed survives a refresh) and the invitation form.
  const list = el('div', { id: 'relationships-slot' });
  const invite = el('div', { id: 'invite-slot' });
  section.replaceChildren(el('h2', { id: 'partners-title' }, t('partners.title')), list, el('h3', {}, t('partners.invite.title')), invite);

  /** A command on a relationship; a refusal is thrown to the card, which shows it. */
  async function onAct(r, command, body, label) {
    await api.post(`/partner-relationships/${r.id}/${command}`, body, r.resourceVersion, label);
    notice(t('notice.done'), `${label}.`);
    // Names first (a newly invited organization is named from now on), then the list.
    await onChanged();
    await refresh();
  }

  mountInviteForm(invite, {
    api,
    scopes: SHARING,
    scopeWords,
    onInvite: async (organization, scopes) => {
      const label = t('partners.invite.label', { organization: organization.name });
      const created = await api.post('/partner-relationships', { requestingOrganizationId: state.me, acceptingOrganizationId: organization.organizationId, scopes }, undefined, label);
      await api.post(`/partner-relationships/${created.id}/request`, {}, created.resourceVersion, label);
      notice(t('partners.invited'), t('partners.invited.text', { organization: organization.name }));
      await onChanged();
      await refresh();
    },
  });

  async function refresh() {
    let relationships;
    let failed;
    try {
      relationships = await api.all('/partner-relationships', 1000);
    } catch (err) {
      if (err?.sessionEnded) return;
      failed = String(err?.problem?.title ?? err);
    }
    render(html`<${Relationships} relationships=${relationships} failed=${failed} state=${state} onAct=${onAct} />`, list);
  }

  return { refresh };
}
