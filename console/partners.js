// Partners (the organization's admins: relationships:manage): the organization's partner
// relationships by name, what each lets the partner do in words, and the commands of its state:
// invite (create and request), accept or reject an invitation, withdraw one not yet answered,
// suspend, reactivate, terminate. The broker's refusals are shown as its problems.
import { el } from './views.js';
import { nameOf, statusOf, when } from './format.js';

/** What a scope lets the partner do, in words (the relationship grants it both ways). */
export const SCOPE_WORDS = {
  'capacity:read': 'see the trucks shared with them',
  'capacity:publish': 'offer trucks to you',
  'loads:read': 'see the loads shared with them',
  'loads:publish': 'offer loads to you',
  'matches:read': 'see the proposals between you',
  'matches:decide': 'accept or reject those proposals',
  'tenders:read': 'see tenders between you',
  'tenders:publish': 'issue tenders to you',
  'tenders:decide': 'accept, counter or reject tenders',
  'commitments:read': 'see the commitments made',
  'handovers:write': 'hand over the execution details',
  'handovers:read': 'read handovers',
  'handovers:acknowledge': 'acknowledge handovers',
  'execution:update': 'report milestones',
  'outcomes:write': 'report outcomes',
  'outcomes:review': 'review outcomes',
};
const SHARING = ['capacity:read', 'capacity:publish', 'loads:read', 'loads:publish', 'matches:read', 'matches:decide', 'tenders:read', 'tenders:publish', 'tenders:decide', 'commitments:read'];

export function createPartnersPage({ api, state, notice, onChanged }) {
  const section = document.getElementById('partners');
  section.hidden = false;

  async function act(r, command, body, label, slot) {
    try {
      await api.post(`/partner-relationships/${r.id}/${command}`, body, r.resourceVersion, label);
      notice(el('strong', {}, 'Done: '), `${label}.`);
      // Names first (a newly invited organization is named from now on), then the list.
      await onChanged();
      await refresh();
    } catch (err) {
      if (err?.sessionEnded) return;
      slot.textContent = `${err?.problem?.title ?? 'Refused'}${err?.problem?.detail ? `: ${err.problem.detail}` : ''}`;
    }
  }

  function actions(r) {
    const slot = el('span', { class: 'field-error', role: 'alert' });
    const other = nameOf(r.requestingOrganizationId === state.me ? r.acceptingOrganizationId : r.requestingOrganizationId, state.names);
    const ours = r.requestingOrganizationId === state.me;
    const reasoned = (command, text) => {
      const reason = el('input', { id: `${command}-${r.id}`, placeholder: 'Reason' });
      return el('form', { class: 'action', onsubmit: (e) => (e.preventDefault(), act(r, command, { reason: reason.value.trim() || `${command} from the console` }, `${text} the partnership with ${other}`, slot)) },
        el('label', { for: reason.id, class: 'visually-hidden' }, `Reason to ${command}`), reason, el('button', { type: 'submit' }, text));
    };
    const plain = (command, text, extra = {}) => el('button', { type: 'button', ...extra, onclick: () => act(r, command, {}, `${text} the partnership with ${other}`, slot) }, text);
    const out = [];
    if (r.status === 'draft' && ours) out.push(plain('request', 'Send the invitation'));
    if (r.status === 'requested' && !ours) out.push(plain('accept', 'Accept', { class: 'accept' }), plain('reject', 'Reject', { class: 'reject' }));
    if (r.status === 'requested' && ours) out.push(reasoned('withdraw', 'Withdraw'));
    if (r.status === 'active') out.push(reasoned('suspend', 'Suspend'));
    if (r.status === 'suspended') out.push(plain('reactivate', 'Reactivate'));
    if (['active', 'suspended'].includes(r.status)) out.push(reasoned('terminate', 'Terminate'));
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
      el('p', {}, el('strong', {}, statusOf(r.status)), ` · ${ours ? 'you invited them' : 'they invited you'} · since ${when(since)}${r.effectiveUntil ? ` · until ${when(r.effectiveUntil)}` : ''}`),
      el('p', {}, `${r.status === 'active' ? 'Each of you may' : 'Each of you would be able to'}: ${(scopes ?? []).map((s) => SCOPE_WORDS[s] ?? s).join('; ') || 'nothing yet'}.`),
      actions(r),
    );
  }

  const invite = (() => {
    const id = el('input', { id: 'invite-organization', placeholder: 'org-...', required: true });
    const boxes = SHARING.map((s) => el('label', { class: 'scope' }, el('input', { type: 'checkbox', value: s, checked: true }), ` ${SCOPE_WORDS[s]}`));
    const slot = el('p', { class: 'field-error', role: 'alert' });
    const form = el(
      'form',
      { id: 'invite-form', class: 'register', onsubmit: async (e) => {
        e.preventDefault();
        slot.textContent = '';
        const scopes = boxes.map((b) => b.querySelector('input')).filter((b) => b.checked).map((b) => b.value);
        const label = `Invite ${id.value.trim()} as a partner`;
        try {
          const created = await api.post('/partner-relationships', { requestingOrganizationId: state.me, acceptingOrganizationId: id.value.trim(), scopes }, undefined, label);
          await api.post(`/partner-relationships/${created.id}/request`, {}, created.resourceVersion, label);
          notice(el('strong', {}, 'Invited: '), `${id.value.trim()}; they see the invitation now and accept or reject it.`);
          id.value = '';
          await onChanged();
          await refresh();
        } catch (err) {
          if (err?.sessionEnded) return;
          slot.textContent = `${err?.problem?.title ?? 'Not invited'}${err?.problem?.detail ? `: ${err.problem.detail}` : ''}`;
        }
      } },
      el('label', { for: 'invite-organization' }, 'Organization id'), id,
      el('fieldset', { class: 'scopes' }, el('legend', {}, 'Each of you may'), boxes),
      el('button', { type: 'submit' }, 'Invite partner'),
      slot,
    );
    return form;
  })();

  async function refresh() {
    try {
      const relationships = await api.all('/partner-relationships', 1000);
      relationships.sort((a, b) => ['requested', 'active', 'suspended', 'draft', 'terminated'].indexOf(a.status) - ['requested', 'active', 'suspended', 'draft', 'terminated'].indexOf(b.status));
      section.replaceChildren(
        el('h2', { id: 'partners-title' }, 'Partners'),
        relationships.length ? el('ul', { class: 'relationships' }, relationships.map(card)) : el('p', { class: 'muted' }, 'No partners yet. Invite an organization by the id it gives you: once it accepts, what you share reaches it and the broker proposes matches between you.'),
        el('h3', {}, 'Invite a partner'),
        invite,
      );
    } catch (err) {
      if (!err?.sessionEnded) section.replaceChildren(el('h2', { id: 'partners-title' }, 'Partners'), el('p', { class: 'field-error' }, String(err?.problem?.title ?? err)));
    }
  }

  return { refresh };
}
