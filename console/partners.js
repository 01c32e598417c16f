// Partners (the organization's admins: relationships:manage): the organization's partner
// relationships by name, what each lets the partner do in words, and the commands of its state:
// invite (create and request), accept or reject an invitation, withdraw one not yet answered,
// suspend, reactivate, terminate. The broker's refusals are shown as its problems.
import { el } from './views.js';
import { has, nameOf, statusOf, t, when } from './format.js';
import { mountInviteForm } from './invite.js';

/** What a scope lets the partner do, in words (the relationship grants it both ways). */
export const scopeWords = (scope) => (has(`scope.${scope}`) ? t(`scope.${scope}`) : scope);
const SHARING = ['capacity:read', 'capacity:publish', 'loads:read', 'loads:publish', 'matches:read', 'matches:decide', 'tenders:read', 'tenders:publish', 'tenders:decide', 'commitments:read'];

export function createPartnersPage({ api, state, notice, onChanged }) {
  const section = document.getElementById('partners');
  section.hidden = false;

  async function act(r, command, body, label, slot) {
    try {
      await api.post(`/partner-relationships/${r.id}/${command}`, body, r.resourceVersion, label);
      notice(el('strong', {}, `${t('notice.done')}: `), `${label}.`);
      // Names first (a newly invited organization is named from now on), then the list.
      await onChanged();
      await refresh();
    } catch (err) {
      if (err?.sessionEnded) return;
      slot.textContent = `${err?.problem?.title ?? t('problem.refused')}${err?.problem?.detail ? `: ${err.problem.detail}` : ''}`;
    }
  }

  function actions(r) {
    const slot = el('span', { class: 'field-error', role: 'alert' });
    const other = nameOf(r.requestingOrganizationId === state.me ? r.acceptingOrganizationId : r.requestingOrganizationId, state.names);
    const ours = r.requestingOrganizationId === state.me;
    // A command's button, what it does in words (the notice, a command kept across a sign-in) and, for some, a reason.
    const reasoned = (command) => {
      const reason = el('input', { id: `${command}-${r.id}`, placeholder: t('partners.reason') });
      return el('form', { class: 'action', onsubmit: (e) => (e.preventDefault(), act(r, command, { reason: reason.value.trim() || t(`partners.${command}.defaultReason`) }, t(`partners.${command}.label`, { partner: other }), slot)) },
        el('label', { for: reason.id, class: 'visually-hidden' }, t(`partners.${command}.reasonLabel`)), reason, el('button', { type: 'submit' }, t(`partners.${command}`)));
    };
    const plain = (command, extra = {}) => el('button', { type: 'button', ...extra, onclick: () => act(r, command, {}, t(`partners.${command}.label`, { partner: other }), slot) }, t(`partners.${command}`));
    const out = [];
    if (r.status === 'draft' && ours) out.push(plain('request'));
    if (r.status === 'requested' && !ours) out.push(plain('accept', { class: 'accept' }), plain('reject', { class: 'reject' }));
    if (r.status === 'requested' && ours) out.push(reasoned('withdraw'));
    if (r.status === 'active') out.push(reasoned('suspend'));
    if (r.status === 'suspended') out.push(plain('reactivate'));
    if (['active', 'suspended'].includes(r.status)) out.push(reasoned('terminate'));
    return el('div', { class: 'actions' }, out, slot);
  }

  function card(r) {
    const ours = r.requestingOrganizationId === state.me;
    const other = ours ? r.acceptingOrganizationId : r.requestingOrganizationId;
    const scopes = r.status === 'active' || r.status === 'suspended' ? r.scopes : r.requestedScopes ?? r.scopes;
    const since = r.activatedAt ?? r.submittedAt ?? r.createdAt;
    return el(
      'li',
      { class: `relationship status-${r.status}`, 'data-relationship': r.id },
      el('h4', {}, nameOf(other, state.names), el('span', { class: 'muted' }, ` (${other})`)),
      el('p', {}, el('strong', {}, statusOf(r.status)), ` · ${t(ours ? 'partners.youInvited' : 'partners.theyInvited')} · ${t('partners.since', { when: when(since) })}${r.effectiveUntil ? ` · ${t('partners.until', { when: when(r.effectiveUntil) })}` : ''}`),
      el('p', {}, `${t(r.status === 'active' ? 'partners.mayNow' : 'partners.mayLater')}: ${(scopes ?? []).map(scopeWords).join('; ') || t('partners.nothingYet')}.`),
      actions(r),
    );
  }

  // The invitation form: a component of its own (console/invite.js), drawn once into its slot and
  // moved with it when the list above is redrawn, so a search half typed survives a refresh.
  const invite = el('div', { id: 'invite-slot' });
  mountInviteForm(invite, {
    api,
    scopes: SHARING,
    scopeWords,
    onInvite: async (organization, scopes) => {
      const label = t('partners.invite.label', { organization: organization.name });
      const created = await api.post('/partner-relationships', { requestingOrganizationId: state.me, acceptingOrganizationId: organization.organizationId, scopes }, undefined, label);
      await api.post(`/partner-relationships/${created.id}/request`, {}, created.resourceVersion, label);
      notice(el('strong', {}, `${t('partners.invited')}: `), t('partners.invited.text', { organization: organization.name }));
      await onChanged();
      await refresh();
    },
  });

  async function refresh() {
    try {
      const relationships = await api.all('/partner-relationships', 1000);
      relationships.sort((a, b) => ['requested', 'active', 'suspended', 'draft', 'terminated'].indexOf(a.status) - ['requested', 'active', 'suspended', 'draft', 'terminated'].indexOf(b.status));
      section.replaceChildren(
        el('h2', { id: 'partners-title' }, t('partners.title')),
        relationships.length ? el('ul', { class: 'relationships' }, relationships.map(card)) : el('p', { class: 'muted' }, t('partners.none')),
        el('h3', {}, t('partners.invite.title')),
        invite,
      );
    } catch (err) {
      if (!err?.sessionEnded) section.replaceChildren(el('h2', { id: 'partners-title' }, t('partners.title')), el('p', { class: 'field-error' }, String(err?.problem?.title ?? err)));
    }
  }

  return { refresh };
}
