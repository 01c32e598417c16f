// The organization's own page for its admins (connectors:manage): its record and verification,
// its connectors with their keys (when each was last used), a key revoked, a connector disabled
// or enabled, a client secret generated and shown this once; its users, invited (with the
// development provider, an invitation code shown this once), disabled, enabled; its webhook subscriptions. And the
// protocol operator's page (exchange:admin): every organization with its verification, a new one
// registered, verified on evidence or rejected, suspended, reinstated, ended. Every action reads
// the version it acts on and shows its outcome: the refreshed page, or the problem answered (in the
// console's problem box). Drawn as components (./ui.js), redrawn by difference after every action:
// what an admin has typed into another form (a reason, a listing's words) stays through the
// refresh, and a form's own field is emptied once its action went through.
import { html, render, useState } from './ui.js';
import { connectorScopesOf, has, t, whenShort as local } from './format.js';

/** A record's status, capitalized as on a record card ("Pending verification"). */
export const statusWord = (status) => (has(`org.status.${status}`) ? t(`org.status.${status}`) : status);
const SCHEMES = ['LEI', 'VAT', 'EORI'];
const schemeWord = (scheme) => (has(`org.scheme.${scheme}`) ? t(`org.scheme.${scheme}`) : scheme);
const ROLES = ['planner', 'viewer', 'admin'];
const roleWord = (role) => (has(`org.role.${role}`) ? t(`org.role.${role}`) : role);

/**
 * A one-field form with its button: `label` names the field (a reason, an evidence reference).
 * `onSubmit` answers whether the action went through (the field is then emptied). Drawn with a
 * key of its id, so that a field typed into is never handed to another action's form.
 */
function ActionForm({ id, label, button, onSubmit, required = true }) {
  const [value, setValue] = useState('');
  const submit = async (e) => {
    e.preventDefault();
    if (await onSubmit(value.trim())) setValue('');
  };
  return html`<form class="action" onSubmit=${submit}>
    <label for=${id}>${label}</label>
    <input type="text" id=${id} name=${id} required=${required} autocomplete="off" value=${value} onInput=${(e) => setValue(e.currentTarget.value)} />
    <button type="submit">${button}</button>
  </form>`;
}

export function verificationText(o) {
  const v = o.verification ?? {};
  // The seed's records were verified by the broker itself, from the configuration file.
  if (v.status === 'verified' && v.decidedBy?.organizationId === 'broker') return t('org.verification.imported', { evidence: v.evidenceReference, when: local(v.decidedAt) });
  if (v.status === 'verified') return t('org.verification.verified', { when: local(v.decidedAt), by: v.decidedBy?.userId ?? v.decidedBy?.clientId ?? v.decidedBy?.organizationId, evidence: v.evidenceReference });
  if (v.status === 'rejected') return t('org.verification.rejected', { when: local(v.decidedAt), reason: v.reason });
  return t('org.verification.none');
}

/** A connector's key: what it is, its state and dates, and its revocation while active. */
function KeyLine({ c, k, ctx }) {
  const what = k.kind === 'clientSecret' ? t('org.key.secret', { hint: k.secretHint }) : t(k.publicJwk?.x5c ? 'org.key.jwkCertificate' : 'org.key.jwk', { id: k.credentialId });
  const facts = [statusWord(k.status), t('org.key.added', { when: local(k.createdAt) }), k.expiresAt ? t('org.key.until', { when: local(k.expiresAt) }) : t('org.key.noExpiry'), k.lastUsedAt ? t('org.key.lastUsed', { when: local(k.lastUsedAt) }) : t('org.key.neverUsed')];
  return html`<li class="credential"><strong>${what}</strong>${` ${facts.join(', ')}`}${k.status === 'active'
      ? html`<${ActionForm} key=${`revoke-${k.credentialId}`} id=${`revoke-${k.credentialId}`} label=${t('org.key.revokeReason')} button=${t('org.key.revoke')} onSubmit=${(reason) => ctx.act(() => ctx.api.post(`/connectors/${c.id}/revoke-credential`, { credentialId: k.credentialId, reason }, c.resourceVersion))} />`
      : ''}</li>`;
}

/** A connector: its name, client id, state and scopes in words, its keys, and its commands unless retired. */
function ConnectorCard({ c, ctx }) {
  const live = c.status !== 'retired';
  const newSecret = () =>
    ctx.act(async () => {
      const answer = await ctx.api.post(`/connectors/${c.id}/credentials`, { generateClientSecret: true }, c.resourceVersion);
      ctx.shown.secret = { clientId: c.clientId, secret: answer.clientSecret };
    });
  return html`<li class="connector">
    <h4>${`${c.name} `}<span class="muted">${`(${c.clientId}) ${statusWord(c.status)}`}</span></h4>
    <p class="muted">${t('org.connector.may', { scopes: connectorScopesOf(c.scopes) || t('org.connector.nothing') })}</p>
    <ul class="credentials">${c.credentials?.length ? c.credentials.map((k) => html`<${KeyLine} key=${k.credentialId} c=${c} k=${k} ctx=${ctx} />`) : html`<li class="muted">${t('org.connector.noKeys')}</li>`}</ul>
    ${live
      ? html`<div class="actions">${c.status === 'active'
          ? html`<${ActionForm} key=${`disable-${c.id}`} id=${`disable-${c.id}`} label=${t('org.connector.disableReason')} button=${t('org.connector.disable')} onSubmit=${(reason) => ctx.act(() => ctx.api.post(`/connectors/${c.id}/disable`, { reason }, c.resourceVersion))} />`
          : html`<button type="button" onClick=${() => ctx.act(() => ctx.api.post(`/connectors/${c.id}/enable`, {}, c.resourceVersion))}>${t('org.connector.enable')}</button>`}<button type="button" onClick=${newSecret}>${t('org.connector.newSecret')}</button></div>`
      : ''}
  </li>`;
}

/** A user of the organization: name, id, state, roles, and the commands of its state. */
function UserLine({ u, ctx }) {
  const facts = [statusWord(u.status), u.roles.map(roleWord).join(', '), u.status === 'invited' ? t('org.user.invitedUntil', { when: local(u.invitationExpiresAt) }) : u.acceptedAt ? t('org.user.since', { when: local(u.acceptedAt) }) : ''].filter(Boolean);
  const reinvite = () =>
    ctx.act(async () => {
      const answer = await ctx.api.post(`/users/${u.id}/reinvite`, {}, u.resourceVersion);
      if (answer.invitationCode) ctx.shown.invitation = { userId: u.userId, code: answer.invitationCode };
    });
  return html`<li data-user=${u.userId}><strong>${u.name ?? u.userId}</strong>${` (${u.userId}) ${facts.join(', ')}`}${u.status === 'active' || u.status === 'invited'
      ? html`<${ActionForm} key=${`disable-user-${u.id}`} id=${`disable-user-${u.id}`} label=${t('org.user.disableReason')} button=${t('org.user.disable')} onSubmit=${(reason) => ctx.act(() => ctx.api.post(`/users/${u.id}/disable`, { reason }, u.resourceVersion))} />`
      : ''}${u.status === 'disabled' ? html`<button type="button" onClick=${() => ctx.act(() => ctx.api.post(`/users/${u.id}/enable`, {}, u.resourceVersion))}>${t('org.user.enable')}</button>` : ''}${u.status === 'expired' ? html`<button type="button" onClick=${reinvite}>${t('org.user.reinvite')}</button>` : ''}</li>`;
}

/** A user invited: id, name, role; what was typed is kept until the invitation went through. */
function InviteUserForm({ ctx }) {
  const [userId, setUserId] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState(ROLES[0]);
  const submit = async (e) => {
    e.preventDefault();
    const done = await ctx.act(async () => {
      const answer = await ctx.api.post('/users', { userId: userId.trim(), ...(name.trim() ? { name: name.trim() } : {}), roles: [role] });
      if (answer.invitationCode) ctx.shown.invitation = { userId: answer.userId, code: answer.invitationCode };
    });
    if (done) (setUserId(''), setName(''), setRole(ROLES[0]));
  };
  return html`<form id="invite-user" class="register" onSubmit=${submit}>
    <label for="invite-user-id">${t('org.invite.userId')}</label>
    <input type="text" id="invite-user-id" required autocomplete="off" value=${userId} onInput=${(e) => setUserId(e.currentTarget.value)} />
    <label for="invite-user-name">${t('org.invite.name')}</label>
    <input type="text" id="invite-user-name" autocomplete="off" value=${name} onInput=${(e) => setName(e.currentTarget.value)} />
    <label for="invite-user-role">${t('org.invite.role')}</label>
    <select id="invite-user-role" value=${role} onChange=${(e) => setRole(e.currentTarget.value)}>${ROLES.map((r) => html`<option value=${r}>${roleWord(r)}</option>`)}</select>
    <button type="submit">${t('org.invite.button')}</button>
  </form>`;
}

/** What was made and is shown this once (a client secret, an invitation code). */
const ShownOnce = ({ of, id, value, once }) => html`<div class="secret" role="status"><strong>${`${of}: `}</strong><code id=${id}>${value}</code>${` ${once}`}</div>`;

/** The organization's own page: its record, connectors (the retired folded away), users and webhook subscriptions. */
function OwnPage({ me, org, live, retired, users, subscriptions, secret, invitation, ctx }) {
  return html`<h2 id="organization-title">${t('org.title', { name: org?.name ?? me })}</h2>
    ${org
      ? html`<p>${`${statusWord(org.status)}. ${org.legalIdentifier ? `${schemeWord(org.legalIdentifier.scheme)} ${org.legalIdentifier.value}. ` : ''}${verificationText(org)}.`}</p>`
      : html`<p class="muted">${t('org.noRecord')}</p>`}
    ${secret ? html`<${ShownOnce} of=${t('org.secret.of', { clientId: secret.clientId })} id="shown-secret" value=${secret.secret} once=${t('org.secret.once')} />` : ''}
    <h3>${t('org.connectors')}</h3>
    <ul id="connectors" class="connectors">${live.length ? live.map((c) => html`<${ConnectorCard} key=${c.id} c=${c} ctx=${ctx} />`) : html`<li class="muted">${t('org.connectors.none')}</li>`}</ul>
    ${retired.length
      ? html`<details class="retired"><summary>${t('org.connectors.retired', { count: retired.length })}</summary><ul class="connectors">${retired.map((c) => html`<${ConnectorCard} key=${c.id} c=${c} ctx=${ctx} />`)}</ul></details>`
      : ''}
    <h3>${t('org.users')}</h3>
    ${invitation ? html`<${ShownOnce} of=${t('org.invitation.of', { userId: invitation.userId })} id="shown-invitation" value=${invitation.code} once=${t('org.invitation.once')} />` : ''}
    <ul id="users" class="users">${users.length ? users.map((u) => html`<${UserLine} key=${u.id} u=${u} ctx=${ctx} />`) : html`<li class="muted">${t('org.users.none')}</li>`}</ul>
    <${InviteUserForm} ctx=${ctx} />
    <h3>${t('org.webhooks')}</h3>
    <ul class="subscriptions">${subscriptions.length
      ? subscriptions.map((s) => html`<li key=${s.id}>${`${s.url}: ${s.active ? t('org.webhook.active') : `${t('org.webhook.inactive')}${s.disabledReason ? ` (${s.disabledReason})` : ''}`}, ${s.eventTypes?.length ? s.eventTypes.join(', ') : t('org.webhook.everyEvent')}`}</li>`)
      : html`<li class="muted">${t('org.webhooks.none')}</li>`}</ul>`;
}

/**
 * The directory is the operator's to curate (GET /directory): whether the organization is listed,
 * with the words and country other organizations' admins find it by; listed, updated or taken out
 * here. The fields show the listing until the operator types; what was typed stays until it went through.
 */
function DirectoryCell({ o, ctx }) {
  const [description, setDescription] = useState(undefined);
  const [country, setCountry] = useState(undefined);
  const listing = o.directoryListing;
  const shown = listing?.listed ? `${t('operator.directory.listed')}${listing.country ? ` (${listing.country})` : ''}${listing.description ? `: ${listing.description}` : ''}` : t('operator.directory.notListed');
  if (o.status === 'ended' || o.role === 'operator') return shown;
  const typedDescription = description ?? listing?.description ?? '';
  const typedCountry = country ?? listing?.country ?? '';
  const patch = async (directoryListing) => {
    if (await ctx.act(() => ctx.api.patch(`/organizations/${o.id}`, { directoryListing }, o.resourceVersion, t('operator.directory.label', { name: o.name })))) (setDescription(undefined), setCountry(undefined));
  };
  const list = (e) => {
    e.preventDefault();
    patch({ listed: true, ...(typedDescription.trim() ? { description: typedDescription.trim() } : {}), ...(typedCountry.trim() ? { country: typedCountry.trim().toUpperCase() } : {}) });
  };
  return html`<div>
    <p>${shown}</p>
    <form class="action" onSubmit=${list}>
      <label for=${`directory-description-${o.id}`}>${t('operator.directory.description')}</label>
      <input id=${`directory-description-${o.id}`} value=${typedDescription} maxlength="200" onInput=${(e) => setDescription(e.currentTarget.value)} />
      <label for=${`directory-country-${o.id}`}>${t('operator.directory.country')}</label>
      <input id=${`directory-country-${o.id}`} value=${typedCountry} maxlength="2" size="3" autocomplete="off" onInput=${(e) => setCountry(e.currentTarget.value)} />
      <button type="submit">${t(listing?.listed ? 'operator.directory.update' : 'operator.directory.list')}</button>
    </form>
    ${listing?.listed ? html`<button type="button" onClick=${() => patch({ listed: false })}>${t('operator.directory.unlist')}</button>` : ''}
  </div>`;
}

/** One organization of the exchange: who, its identifier, status, verification, listing, and the operator's commands of its state. */
function OrganizationRow({ o, ctx }) {
  const command = (path, body) => ctx.act(() => ctx.api.post(`/organizations/${o.id}/${path}`, body, o.resourceVersion));
  const form = (path, label, button, field = 'reason') => html`<${ActionForm} key=${`${path}-${o.id}`} id=${`${path}-${o.id}`} label=${label} button=${button} onSubmit=${(value) => command(path, { [field]: value })} />`;
  const actions = [];
  if (o.status === 'pending') {
    actions.push(form('verify', t('operator.evidence'), t('operator.verify'), 'evidenceReference'));
    actions.push(form('reject', t('operator.reason'), t('operator.reject')));
  }
  if (o.status === 'active' && o.role !== 'operator') actions.push(form('suspend', t('operator.reason'), t('operator.suspend')));
  if (o.status === 'suspended') actions.push(form('reinstate', t('operator.reason'), t('operator.reinstate')));
  if (o.status !== 'ended' && o.role !== 'operator') actions.push(form('end', t('operator.reason'), t('operator.end')));
  return html`<tr data-organization=${o.organizationId}>
    <th scope="row">${o.name}<div class="muted">${o.organizationId}</div></th>
    <td>${o.legalIdentifier ? `${schemeWord(o.legalIdentifier.scheme)} ${o.legalIdentifier.value}` : t('operator.noIdentifier')}</td>
    <td>${statusWord(o.status)}${o.statusReason ? html`<div class="muted">${o.statusReason.reason}</div>` : ''}</td>
    <td>${verificationText(o)}${o.adherence?.until ? html`<div class="muted">${t('operator.adherenceUntil', { when: local(o.adherence.until) })}</div>` : ''}</td>
    <td class="directory"><${DirectoryCell} o=${o} ctx=${ctx} /></td>
    <td>${actions}</td>
  </tr>`;
}

/** A new organization registered by the operator; what was typed is kept until it went through. */
function RegisterForm({ ctx }) {
  const [id, setId] = useState('');
  const [name, setName] = useState('');
  const [scheme, setScheme] = useState(SCHEMES[0]);
  const [value, setValue] = useState('');
  const submit = async (e) => {
    e.preventDefault();
    const done = await ctx.act(() => ctx.api.post('/organizations', { organizationId: id.trim(), name: name.trim(), legalIdentifier: { scheme, value: value.trim() } }));
    if (done) (setId(''), setName(''), setScheme(SCHEMES[0]), setValue(''));
  };
  return html`<form id="register-organization" class="register" onSubmit=${submit}>
    <label for="new-organization-name">${t('operator.name')}</label>
    <input type="text" id="new-organization-name" required autocomplete="organization" value=${name} onInput=${(e) => setName(e.currentTarget.value)} />
    <label for="new-organization-id">${t('operator.id')}</label>
    <input type="text" id="new-organization-id" required placeholder="org-nordic-haulage" autocomplete="off" value=${id} onInput=${(e) => setId(e.currentTarget.value)} />
    <label for="new-organization-scheme">${t('operator.scheme')}</label>
    <select id="new-organization-scheme" value=${scheme} onChange=${(e) => setScheme(e.currentTarget.value)}>${SCHEMES.map((v) => html`<option value=${v}>${schemeWord(v)}</option>`)}</select>
    <label for="new-organization-identifier">${t('operator.identifier')}</label>
    <input type="text" id="new-organization-identifier" required autocomplete="off" value=${value} onInput=${(e) => setValue(e.currentTarget.value)} />
    <button type="submit">${t('operator.register')}</button>
  </form>`;
}

/** The operator's page: a new organization registered, every organization in a table. */
function OperatorPage({ organizations, ctx }) {
  const headings = [t('operator.column.organization'), t('operator.column.identifier'), t('operator.column.status'), t('operator.column.verification'), t('operator.column.directory'), ''];
  return html`<h2 id="operator-title">${t('operator.title')}</h2>
    <${RegisterForm} ctx=${ctx} />
    <table id="organizations" class="organizations">
      <thead><tr>${headings.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
      <tbody>${organizations.map((o) => html`<${OrganizationRow} key=${o.id} o=${o} ctx=${ctx} />`)}</tbody>
    </table>`;
}

export function createOrganizationPages({ api, me, scopes, showProblem }) {
  const admin = scopes.has('connectors:manage');
  const operator = scopes.has('exchange:admin');
  const own = document.getElementById('organization');
  const all = document.getElementById('operator');
  own.hidden = !admin;
  all.hidden = !operator;

  /**
   * An action, then the pages read again; its problem in the console's problem box. Answers whether
   * it went through (its form then empties its fields).
   */
  async function act(fn) {
    let done = false;
    try {
      await fn();
      showProblem(null);
      done = true;
    } catch (err) {
      showProblem(err);
    }
    await refresh();
    return done;
  }
  /** What an action made that is shown this once: on the page's next drawing only. */
  const ctx = { api, act, shown: { secret: null, invitation: null } };

  async function renderOwn() {
    // The operator lists every organization's records and connectors: this page shows its own.
    const [organizations, allConnectors, subscriptions, allUsers] = await Promise.all([api.all('/organizations', 2000), api.all('/connectors', 2000), api.all('/webhook-subscriptions'), api.all('/users', 2000)]);
    const users = allUsers.filter((u) => u.organizationId === me && u.status !== 'removed');
    const org = organizations.find((o) => o.organizationId === me);
    const connectors = allConnectors.filter((c) => c.organizationId === me);
    // The working ones first, by name; the retired ones folded away.
    const live = connectors.filter((c) => c.status !== 'retired').sort((a, b) => a.name.localeCompare(b.name));
    const retired = connectors.filter((c) => c.status === 'retired');
    render(html`<${OwnPage} me=${me} org=${org} live=${live} retired=${retired} users=${users} subscriptions=${subscriptions} secret=${ctx.shown.secret} invitation=${ctx.shown.invitation} ctx=${ctx} />`, own);
    ctx.shown.secret = null;
    ctx.shown.invitation = null;
  }

  async function renderOperator() {
    const organizations = await api.all('/organizations', 2000);
    render(html`<${OperatorPage} organizations=${organizations} ctx=${ctx} />`, all);
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
