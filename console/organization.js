// The organization's own page for its admins (connectors:manage): its record and verification,
// its connectors with their keys (when each was last used), a key revoked, a connector disabled
// or enabled, a client secret generated and shown this once; its users, invited (with the
// development provider, an invitation code shown this once), disabled, enabled; its webhook subscriptions. And the
// protocol operator's page (exchange:admin): every organization with its verification, a new one
// registered, verified on evidence or rejected, suspended, reinstated, ended. Every action reads
// the version it acts on and shows its outcome: the refreshed page, or the problem answered.
import { el } from './views.js';
import { connectorScopesOf, has, t, whenShort as local } from './format.js';

/** A record's status, capitalized as on a record card ("Pending verification"). */
export const statusWord = (status) => (has(`org.status.${status}`) ? t(`org.status.${status}`) : status);
const SCHEMES = ['LEI', 'VAT', 'EORI'];
const schemeWord = (scheme) => (has(`org.scheme.${scheme}`) ? t(`org.scheme.${scheme}`) : scheme);

/** A one-field form with its button: `label` names the field (a reason, an evidence reference). */
function actionForm(id, label, button, onSubmit, { required = true } = {}) {
  const input = el('input', { type: 'text', id, name: id, ...(required ? { required: '' } : {}), autocomplete: 'off' });
  return el('form', { class: 'action', onsubmit: (e) => (e.preventDefault(), onSubmit(input.value.trim())) }, el('label', { for: id }, label), input, el('button', { type: 'submit' }, button));
}

export function verificationText(o) {
  const v = o.verification ?? {};
  // The seed's records were verified by the broker itself, from the configuration file.
  if (v.status === 'verified' && v.decidedBy?.organizationId === 'broker') return t('org.verification.imported', { evidence: v.evidenceReference, when: local(v.decidedAt) });
  if (v.status === 'verified') return t('org.verification.verified', { when: local(v.decidedAt), by: v.decidedBy?.userId ?? v.decidedBy?.clientId ?? v.decidedBy?.organizationId, evidence: v.evidenceReference });
  if (v.status === 'rejected') return t('org.verification.rejected', { when: local(v.decidedAt), reason: v.reason });
  return t('org.verification.none');
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
    const what = k.kind === 'clientSecret' ? t('org.key.secret', { hint: k.secretHint }) : t(k.publicJwk?.x5c ? 'org.key.jwkCertificate' : 'org.key.jwk', { id: k.credentialId });
    const facts = [statusWord(k.status), t('org.key.added', { when: local(k.createdAt) }), k.expiresAt ? t('org.key.until', { when: local(k.expiresAt) }) : t('org.key.noExpiry'), k.lastUsedAt ? t('org.key.lastUsed', { when: local(k.lastUsedAt) }) : t('org.key.neverUsed')];
    return el('li', { class: 'credential' }, el('strong', {}, what), ` ${facts.join(', ')}`,
      k.status === 'active' ? actionForm(`revoke-${k.credentialId}`, t('org.key.revokeReason'), t('org.key.revoke'), (reason) => act(() => api.post(`/connectors/${c.id}/revoke-credential`, { credentialId: k.credentialId, reason }, c.resourceVersion))) : '');
  }

  function connectorCard(c) {
    const live = c.status !== 'retired';
    return el('li', { class: 'connector' },
      el('h4', {}, `${c.name} `, el('span', { class: 'muted' }, `(${c.clientId}) ${statusWord(c.status)}`)),
      el('p', { class: 'muted' }, t('org.connector.may', { scopes: connectorScopesOf(c.scopes) || t('org.connector.nothing') })),
      el('ul', { class: 'credentials' }, ...(c.credentials?.length ? c.credentials.map((k) => keyLine(c, k)) : [el('li', { class: 'muted' }, t('org.connector.noKeys'))])),
      live
        ? el('div', { class: 'actions' },
            c.status === 'active'
              ? actionForm(`disable-${c.id}`, t('org.connector.disableReason'), t('org.connector.disable'), (reason) => act(() => api.post(`/connectors/${c.id}/disable`, { reason }, c.resourceVersion)))
              : el('button', { type: 'button', onclick: () => act(() => api.post(`/connectors/${c.id}/enable`, {}, c.resourceVersion)) }, t('org.connector.enable')),
            el('button', { type: 'button', onclick: () => act(async () => {
              const answer = await api.post(`/connectors/${c.id}/credentials`, { generateClientSecret: true }, c.resourceVersion);
              secretShown = { clientId: c.clientId, secret: answer.clientSecret };
            }) }, t('org.connector.newSecret')))
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
      el('h2', { id: 'organization-title' }, t('org.title', { name: org?.name ?? me })),
      org
        ? el('p', {}, `${statusWord(org.status)}. ${org.legalIdentifier ? `${schemeWord(org.legalIdentifier.scheme)} ${org.legalIdentifier.value}. ` : ''}${verificationText(org)}.`)
        : el('p', { class: 'muted' }, t('org.noRecord')),
      secretShown
        ? el('div', { class: 'secret', role: 'status' }, el('strong', {}, `${t('org.secret.of', { clientId: secretShown.clientId })}: `), el('code', { id: 'shown-secret' }, secretShown.secret), ` ${t('org.secret.once')}`)
        : '',
      el('h3', {}, t('org.connectors')),
      el('ul', { id: 'connectors', class: 'connectors' }, ...(live.length ? live.map(connectorCard) : [el('li', { class: 'muted' }, t('org.connectors.none'))])),
      retired.length
        ? el('details', { class: 'retired' }, el('summary', {}, t('org.connectors.retired', { count: retired.length })), el('ul', { class: 'connectors' }, ...retired.map(connectorCard)))
        : '',
      el('h3', {}, t('org.users')),
      invitationShown
        ? el('div', { class: 'secret', role: 'status' }, el('strong', {}, `${t('org.invitation.of', { userId: invitationShown.userId })}: `), el('code', { id: 'shown-invitation' }, invitationShown.code), ` ${t('org.invitation.once')}`)
        : '',
      el('ul', { id: 'users', class: 'users' }, ...(users.length ? users.map(userLine) : [el('li', { class: 'muted' }, t('org.users.none'))])),
      inviteForm(),
      el('h3', {}, t('org.webhooks')),
      el('ul', { class: 'subscriptions' }, ...(subscriptions.length
        ? subscriptions.map((s) => el('li', {}, `${s.url}: ${s.active ? t('org.webhook.active') : `${t('org.webhook.inactive')}${s.disabledReason ? ` (${s.disabledReason})` : ''}`}, ${s.eventTypes?.length ? s.eventTypes.join(', ') : t('org.webhook.everyEvent')}`))
        : [el('li', { class: 'muted' }, t('org.webhooks.none'))])),
    );
    secretShown = null;
    invitationShown = null;
  }

  const ROLES = ['planner', 'viewer', 'admin'];
  const roleWord = (role) => (has(`org.role.${role}`) ? t(`org.role.${role}`) : role);

  function userLine(u) {
    const facts = [statusWord(u.status), u.roles.map(roleWord).join(', '), u.status === 'invited' ? t('org.user.invitedUntil', { when: local(u.invitationExpiresAt) }) : u.acceptedAt ? t('org.user.since', { when: local(u.acceptedAt) }) : ''].filter(Boolean);
    return el('li', { 'data-user': u.userId }, el('strong', {}, u.name ?? u.userId), ` (${u.userId}) ${facts.join(', ')}`,
      u.status === 'active' || u.status === 'invited' ? actionForm(`disable-user-${u.id}`, t('org.user.disableReason'), t('org.user.disable'), (reason) => act(() => api.post(`/users/${u.id}/disable`, { reason }, u.resourceVersion))) : '',
      u.status === 'disabled' ? el('button', { type: 'button', onclick: () => act(() => api.post(`/users/${u.id}/enable`, {}, u.resourceVersion)) }, t('org.user.enable')) : '',
      u.status === 'expired' ? el('button', { type: 'button', onclick: () => act(async () => {
        const answer = await api.post(`/users/${u.id}/reinvite`, {}, u.resourceVersion);
        if (answer.invitationCode) invitationShown = { userId: u.userId, code: answer.invitationCode };
      }) }, t('org.user.reinvite')) : '');
  }

  function inviteForm() {
    const userId = el('input', { type: 'text', id: 'invite-user-id', required: '', autocomplete: 'off' });
    const name = el('input', { type: 'text', id: 'invite-user-name', autocomplete: 'off' });
    const role = el('select', { id: 'invite-user-role' }, ...ROLES.map((r) => el('option', { value: r }, roleWord(r))));
    return el('form', { id: 'invite-user', class: 'register', onsubmit: (e) => (e.preventDefault(), act(async () => {
      const answer = await api.post('/users', { userId: userId.value.trim(), ...(name.value.trim() ? { name: name.value.trim() } : {}), roles: [role.value] });
      if (answer.invitationCode) invitationShown = { userId: answer.userId, code: answer.invitationCode };
    })) },
      el('label', { for: 'invite-user-id' }, t('org.invite.userId')), userId,
      el('label', { for: 'invite-user-name' }, t('org.invite.name')), name,
      el('label', { for: 'invite-user-role' }, t('org.invite.role')), role,
      el('button', { type: 'submit' }, t('org.invite.button')));
  }

  /**
   * The directory is the operator's to curate (GET /directory): whether the organization is listed,
   * with the words and country other organizations' admins find it by; listed, updated or taken out here.
   */
  function directoryCell(o) {
    const listing = o.directoryListing;
    const shown = listing?.listed ? `${t('operator.directory.listed')}${listing.country ? ` (${listing.country})` : ''}${listing.description ? `: ${listing.description}` : ''}` : t('operator.directory.notListed');
    if (o.status === 'ended' || o.role === 'operator') return shown;
    const patch = (directoryListing) => act(() => api.patch(`/organizations/${o.id}`, { directoryListing }, o.resourceVersion, t('operator.directory.label', { name: o.name })));
    const description = el('input', { id: `directory-description-${o.id}`, value: listing?.description ?? '', maxlength: '200' });
    const country = el('input', { id: `directory-country-${o.id}`, value: listing?.country ?? '', maxlength: '2', size: '3', autocomplete: 'off' });
    return el('div', {}, el('p', {}, shown),
      el('form', { class: 'action', onsubmit: (e) => (e.preventDefault(), patch({ listed: true, ...(description.value.trim() ? { description: description.value.trim() } : {}), ...(country.value.trim() ? { country: country.value.trim().toUpperCase() } : {}) })) },
        el('label', { for: description.id }, t('operator.directory.description')), description,
        el('label', { for: country.id }, t('operator.directory.country')), country,
        el('button', { type: 'submit' }, t(listing?.listed ? 'operator.directory.update' : 'operator.directory.list'))),
      listing?.listed ? el('button', { type: 'button', onclick: () => patch({ listed: false }) }, t('operator.directory.unlist')) : '');
  }

  function organizationRow(o) {
    const actions = [];
    if (o.status === 'pending') {
      actions.push(actionForm(`verify-${o.id}`, t('operator.evidence'), t('operator.verify'), (evidenceReference) => act(() => api.post(`/organizations/${o.id}/verify`, { evidenceReference }, o.resourceVersion))));
      actions.push(actionForm(`reject-${o.id}`, t('operator.reason'), t('operator.reject'), (reason) => act(() => api.post(`/organizations/${o.id}/reject`, { reason }, o.resourceVersion))));
    }
    if (o.status === 'active' && o.role !== 'operator') actions.push(actionForm(`suspend-${o.id}`, t('operator.reason'), t('operator.suspend'), (reason) => act(() => api.post(`/organizations/${o.id}/suspend`, { reason }, o.resourceVersion))));
    if (o.status === 'suspended') actions.push(actionForm(`reinstate-${o.id}`, t('operator.reason'), t('operator.reinstate'), (reason) => act(() => api.post(`/organizations/${o.id}/reinstate`, { reason }, o.resourceVersion))));
    if (o.status !== 'ended' && o.role !== 'operator') actions.push(actionForm(`end-${o.id}`, t('operator.reason'), t('operator.end'), (reason) => act(() => api.post(`/organizations/${o.id}/end`, { reason }, o.resourceVersion))));
    return el('tr', { 'data-organization': o.organizationId },
      el('th', { scope: 'row' }, o.name, el('div', { class: 'muted' }, o.organizationId)),
      el('td', {}, o.legalIdentifier ? `${schemeWord(o.legalIdentifier.scheme)} ${o.legalIdentifier.value}` : t('operator.noIdentifier')),
      el('td', {}, statusWord(o.status), o.statusReason ? el('div', { class: 'muted' }, o.statusReason.reason) : ''),
      el('td', {}, verificationText(o), o.adherence?.until ? el('div', { class: 'muted' }, t('operator.adherenceUntil', { when: local(o.adherence.until) })) : ''),
      el('td', { class: 'directory' }, directoryCell(o)),
      el('td', {}, ...actions),
    );
  }

  async function renderOperator() {
    const organizations = await api.all('/organizations', 2000);
    const id = el('input', { type: 'text', id: 'new-organization-id', required: '', placeholder: 'org-nordic-haulage', autocomplete: 'off' });
    const name = el('input', { type: 'text', id: 'new-organization-name', required: '', autocomplete: 'organization' });
    const scheme = el('select', { id: 'new-organization-scheme' }, ...SCHEMES.map((v) => el('option', { value: v }, schemeWord(v))));
    const value = el('input', { type: 'text', id: 'new-organization-identifier', required: '', autocomplete: 'off' });
    all.replaceChildren(
      el('h2', { id: 'operator-title' }, t('operator.title')),
      el('form', { id: 'register-organization', class: 'register', onsubmit: (e) => (e.preventDefault(), act(() => api.post('/organizations', { organizationId: id.value.trim(), name: name.value.trim(), legalIdentifier: { scheme: scheme.value, value: value.value.trim() } }))) },
        el('label', { for: 'new-organization-name' }, t('operator.name')), name,
        el('label', { for: 'new-organization-id' }, t('operator.id')), id,
        el('label', { for: 'new-organization-scheme' }, t('operator.scheme')), scheme,
        el('label', { for: 'new-organization-identifier' }, t('operator.identifier')), value,
        el('button', { type: 'submit' }, t('operator.register'))),
      el('table', { id: 'organizations', class: 'organizations' },
        el('thead', {}, el('tr', {}, ...[t('operator.column.organization'), t('operator.column.identifier'), t('operator.column.status'), t('operator.column.verification'), t('operator.column.directory'), ''].map((h) => el('th', { scope: 'col' }, h)))),
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
