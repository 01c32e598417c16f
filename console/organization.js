// The organization's own page for its admins (connectors:manage): its record and verification,
// its connectors with their keys (when each was last used), a key revoked, a connector disabled
// or enabled, a client secret generated and shown this once; its users, invited (with the
// development provider, an invitation code shown this once), disabled, enabled; its webhook subscriptions. And the
// protocol operator's page (exchange:admin): every organization with its verification, a new one
// registered, verified on evidence or rejected, suspended, reinstated, ended. Every action reads
// the version it acts on and shows its outcome: the refreshed page, or the problem answered.
import { el } from './views.js';

const local = (iso) => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' }) : '');
const STATUS = { invited: 'Invited', pending: 'Pending verification', active: 'Active', suspended: 'Suspended', ended: 'Ended', disabled: 'Disabled', retired: 'Retired', expired: 'Expired', revoked: 'Revoked' };
const SCHEMES = { LEI: 'LEI (ISO 17442)', VAT: 'VAT number', EORI: 'EORI number' };

/** A one-field form with its button: `label` names the field (a reason, an evidence reference). */
function actionForm(id, label, button, onSubmit, { required = true } = {}) {
  const input = el('input', { type: 'text', id, name: id, ...(required ? { required: '' } : {}), autocomplete: 'off' });
  return el('form', { class: 'action', onsubmit: (e) => (e.preventDefault(), onSubmit(input.value.trim())) }, el('label', { for: id }, label), input, el('button', { type: 'submit' }, button));
}

function verificationText(o) {
  const v = o.verification ?? {};
  // The seed's records were verified by the broker itself, from the configuration file.
  if (v.status === 'verified' && v.decidedBy?.organizationId === 'broker') return `Imported from ${v.evidenceReference} ${local(v.decidedAt)}`;
  if (v.status === 'verified') return `Verified ${local(v.decidedAt)} by ${v.decidedBy?.userId ?? v.decidedBy?.clientId ?? v.decidedBy?.organizationId} (evidence: ${v.evidenceReference})`;
  if (v.status === 'rejected') return `Verification rejected ${local(v.decidedAt)}: ${v.reason}`;
  return 'Not verified yet';
}

export function createOrganizationPages({ api, me, scopes, showProblem }) {
  const admin = scopes.has('connectors:manage');
  const operator = scopes.has('exchange:admin');
  const own = document.getElementById('organization');
  const all = document.getElementById('operator');
  own.hidden = !admin;
  all.hidden = !operator;
  let secretShown = null;
  let invitationShown = null;

  async function act(fn) {
    try {
      await fn();
      showProblem(null);
    } catch (err) {
      showProblem(err);
    }
    await refresh();
  }

  function keyLine(c, k) {
    const what = k.kind === 'clientSecret' ? `Client secret ending ${k.secretHint}` : `Key ${k.credentialId}${k.publicJwk?.x5c ? ' (with certificate)' : ''}`;
    const facts = [STATUS[k.status] ?? k.status, `added ${local(k.createdAt)}`, k.expiresAt ? `until ${local(k.expiresAt)}` : 'no expiry', k.lastUsedAt ? `last used ${local(k.lastUsedAt)}` : 'never used'];
    return el('li', { class: 'credential' }, el('strong', {}, what), ` ${facts.join(', ')}`,
      k.status === 'active' ? actionForm(`revoke-${k.credentialId}`, 'Reason to revoke', 'Revoke', (reason) => act(() => api.post(`/connectors/${c.id}/revoke-credential`, { credentialId: k.credentialId, reason }, c.resourceVersion))) : '');
  }

  function connectorCard(c) {
    const live = c.status !== 'retired';
    return el('li', { class: 'connector' },
      el('h4', {}, `${c.name} `, el('span', { class: 'muted' }, `(${c.clientId}) ${STATUS[c.status] ?? c.status}`)),
      el('p', { class: 'muted' }, `May: ${c.scopes.join(', ') || 'nothing yet'}`),
      el('ul', { class: 'credentials' }, ...(c.credentials?.length ? c.credentials.map((k) => keyLine(c, k)) : [el('li', { class: 'muted' }, 'No keys yet.')])),
      live
        ? el('div', { class: 'actions' },
            c.status === 'active'
              ? actionForm(`disable-${c.id}`, 'Reason to disable', 'Disable connector', (reason) => act(() => api.post(`/connectors/${c.id}/disable`, { reason }, c.resourceVersion)))
              : el('button', { type: 'button', onclick: () => act(() => api.post(`/connectors/${c.id}/enable`, {}, c.resourceVersion)) }, 'Enable connector'),
            el('button', { type: 'button', onclick: () => act(async () => {
              const answer = await api.post(`/connectors/${c.id}/credentials`, { generateClientSecret: true }, c.resourceVersion);
              secretShown = { clientId: c.clientId, secret: answer.clientSecret };
            }) }, 'New client secret'))
        : '',
    );
  }

  async function renderOwn() {
    // The operator lists every organization's records and connectors: this page shows its own.
    const [organizations, allConnectors, subscriptions, allUsers] = await Promise.all([api.all('/organizations', 2000), api.all('/connectors', 2000), api.all('/webhook-subscriptions'), api.all('/users', 2000)]);
    const users = allUsers.filter((u) => u.organizationId === me && u.status !== 'removed');
    const org = organizations.find((o) => o.organizationId === me);
    const connectors = allConnectors.filter((c) => c.organizationId === me);
    // The working ones first, by name; the retired ones folded away.
    const live = connectors.filter((c) => c.status !== 'retired').sort((a, b) => a.name.localeCompare(b.name));
    const retired = connectors.filter((c) => c.status === 'retired');
    own.replaceChildren(
      el('h2', { id: 'organization-title' }, `Your organization: ${org?.name ?? me}`),
      org
        ? el('p', {}, `${STATUS[org.status] ?? org.status}. ${org.legalIdentifier ? `${SCHEMES[org.legalIdentifier.scheme]} ${org.legalIdentifier.value}. ` : ''}${verificationText(org)}.`)
        : el('p', { class: 'muted' }, 'Your organization is configured by file and has no record yet.'),
      secretShown
        ? el('div', { class: 'secret', role: 'status' }, el('strong', {}, `New client secret of ${secretShown.clientId}: `), el('code', { id: 'shown-secret' }, secretShown.secret), ' Copy it now: it is not shown again.')
        : '',
      el('h3', {}, 'Connectors'),
      el('ul', { id: 'connectors', class: 'connectors' }, ...(live.length ? live.map(connectorCard) : [el('li', { class: 'muted' }, 'No connectors managed here yet.')])),
      retired.length
        ? el('details', { class: 'retired' }, el('summary', {}, `Retired connectors (${retired.length})`), el('ul', { class: 'connectors' }, ...retired.map(connectorCard)))
        : '',
      el('h3', {}, 'Users'),
      invitationShown
        ? el('div', { class: 'secret', role: 'status' }, el('strong', {}, `Invitation code of ${invitationShown.userId}: `), el('code', { id: 'shown-invitation' }, invitationShown.code), ' Give it to the user now (the password at the development sign-in page): it is not shown again.')
        : '',
      el('ul', { id: 'users', class: 'users' }, ...(users.length ? users.map(userLine) : [el('li', { class: 'muted' }, 'No users invited here yet (users of the users file are not listed).')])),
      inviteForm(),
      el('h3', {}, 'Webhook subscriptions'),
      el('ul', { class: 'subscriptions' }, ...(subscriptions.length
        ? subscriptions.map((s) => el('li', {}, `${s.url}: ${s.active ? 'active' : `inactive${s.disabledReason ? ` (${s.disabledReason})` : ''}`}, ${s.eventTypes?.length ? s.eventTypes.join(', ') : 'every event'}`))
        : [el('li', { class: 'muted' }, 'No webhook subscriptions.')])),
    );
    secretShown = null;
    invitationShown = null;
  }

  const ROLES = { planner: 'Planner', viewer: 'Viewer', admin: 'Admin' };

  function userLine(u) {
    const facts = [STATUS[u.status] ?? u.status, u.roles.map((r) => ROLES[r] ?? r).join(', '), u.status === 'invited' ? `invitation open until ${local(u.invitationExpiresAt)}` : u.acceptedAt ? `since ${local(u.acceptedAt)}` : ''].filter(Boolean);
    return el('li', { 'data-user': u.userId }, el('strong', {}, u.name), ` (${u.userId}) ${facts.join(', ')}`,
      u.status === 'active' || u.status === 'invited' ? actionForm(`disable-user-${u.id}`, 'Reason to disable', 'Disable user', (reason) => act(() => api.post(`/users/${u.id}/disable`, { reason }, u.resourceVersion))) : '',
      u.status === 'disabled' ? el('button', { type: 'button', onclick: () => act(() => api.post(`/users/${u.id}/enable`, {}, u.resourceVersion)) }, 'Enable user') : '',
      u.status === 'expired' ? el('button', { type: 'button', onclick: () => act(async () => {
        const answer = await api.post(`/users/${u.id}/reinvite`, {}, u.resourceVersion);
        if (answer.invitationCode) invitationShown = { userId: u.userId, code: answer.invitationCode };
      }) }, 'Invite again') : '');
  }

  function inviteForm() {
    const userId = el('input', { type: 'text', id: 'invite-user-id', required: '', autocomplete: 'off' });
    const name = el('input', { type: 'text', id: 'invite-user-name', autocomplete: 'off' });
    const role = el('select', { id: 'invite-user-role' }, ...Object.entries(ROLES).map(([v, t]) => el('option', { value: v }, t)));
    return el('form', { id: 'invite-user', class: 'register', onsubmit: (e) => (e.preventDefault(), act(async () => {
      const answer = await api.post('/users', { userId: userId.value.trim(), ...(name.value.trim() ? { name: name.value.trim() } : {}), roles: [role.value] });
      if (answer.invitationCode) invitationShown = { userId: answer.userId, code: answer.invitationCode };
    })) },
      el('label', { for: 'invite-user-id' }, 'User id (as the identity provider names the user)'), userId,
      el('label', { for: 'invite-user-name' }, 'User name'), name,
      el('label', { for: 'invite-user-role' }, 'Role'), role,
      el('button', { type: 'submit' }, 'Invite'));
  }

  function organizationRow(o) {
    const actions = [];
    if (o.status === 'pending') {
      actions.push(actionForm(`verify-${o.id}`, 'Evidence reference', 'Verify', (evidenceReference) => act(() => api.post(`/organizations/${o.id}/verify`, { evidenceReference }, o.resourceVersion))));
      actions.push(actionForm(`reject-${o.id}`, 'Reason', 'Reject', (reason) => act(() => api.post(`/organizations/${o.id}/reject`, { reason }, o.resourceVersion))));
    }
    if (o.status === 'active' && o.role !== 'operator') actions.push(actionForm(`suspend-${o.id}`, 'Reason', 'Suspend', (reason) => act(() => api.post(`/organizations/${o.id}/suspend`, { reason }, o.resourceVersion))));
    if (o.status === 'suspended') actions.push(actionForm(`reinstate-${o.id}`, 'Reason', 'Reinstate', (reason) => act(() => api.post(`/organizations/${o.id}/reinstate`, { reason }, o.resourceVersion))));
    if (o.status !== 'ended' && o.role !== 'operator') actions.push(actionForm(`end-${o.id}`, 'Reason', 'End', (reason) => act(() => api.post(`/organizations/${o.id}/end`, { reason }, o.resourceVersion))));
    return el('tr', { 'data-organization': o.organizationId },
      el('th', { scope: 'row' }, o.name, el('div', { class: 'muted' }, o.organizationId)),
      el('td', {}, o.legalIdentifier ? `${SCHEMES[o.legalIdentifier.scheme]} ${o.legalIdentifier.value}` : 'none'),
      el('td', {}, STATUS[o.status] ?? o.status, o.statusReason ? el('div', { class: 'muted' }, o.statusReason.reason) : ''),
      el('td', {}, verificationText(o), o.adherence?.until ? el('div', { class: 'muted' }, `Adherence until ${local(o.adherence.until)}`) : ''),
      el('td', {}, ...actions),
    );
  }

  async function renderOperator() {
    const organizations = await api.all('/organizations', 2000);
    const id = el('input', { type: 'text', id: 'new-organization-id', required: '', placeholder: 'org-nordic-haulage', autocomplete: 'off' });
    const name = el('input', { type: 'text', id: 'new-organization-name', required: '', autocomplete: 'organization' });
    const scheme = el('select', { id: 'new-organization-scheme' }, ...Object.entries(SCHEMES).map(([v, t]) => el('option', { value: v }, t)));
    const value = el('input', { type: 'text', id: 'new-organization-identifier', required: '', autocomplete: 'off' });
    all.replaceChildren(
      el('h2', { id: 'operator-title' }, 'Organizations of the exchange'),
      el('form', { id: 'register-organization', class: 'register', onsubmit: (e) => (e.preventDefault(), act(() => api.post('/organizations', { organizationId: id.value.trim(), name: name.value.trim(), legalIdentifier: { scheme: scheme.value, value: value.value.trim() } }))) },
        el('label', { for: 'new-organization-name' }, 'Organization name'), name,
        el('label', { for: 'new-organization-id' }, 'Organization id'), id,
        el('label', { for: 'new-organization-scheme' }, 'Legal identifier'), scheme,
        el('label', { for: 'new-organization-identifier' }, 'Identifier'), value,
        el('button', { type: 'submit' }, 'Register')),
      el('table', { id: 'organizations', class: 'organizations' },
        el('thead', {}, el('tr', {}, ...['Organization', 'Legal identifier', 'Status', 'Verification', ''].map((h) => el('th', { scope: 'col' }, h)))),
        el('tbody', {}, ...organizations.map(organizationRow))),
    );
  }

  async function refresh() {
    try {
      await Promise.all([admin ? renderOwn() : undefined, operator ? renderOperator() : undefined]);
    } catch (err) {
      showProblem(err);
    }
  }
  return { refresh };
}
