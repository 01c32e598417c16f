// The planner console: sign-in with the broker's OIDC provider (Authorization Code with PKCE,
// oidc-client-ts), then the organization's market on a map, its proposals with their explanations
// and the decisions the user's role allows, the path of an accepted match to its outcome, and the
// organization's event feed followed live. Errors are shown as the problem's title and detail.
import { createAdapters } from './adapters.js';
import { createApi, ProblemError } from './api.js';
import { createOrganizationPages } from './organization.js';
import { codesOf, createMap, showListings } from './map.js';
import { el, listingItem, proposalDetail, proposalItem, timelineView } from './views.js';

const $ = (id) => document.getElementById(id);
const SCOPES = 'openid profile capacity:read loads:read matches:read matches:decide tenders:read tenders:publish tenders:decide commitments:read handovers:read outcomes:review connectors:manage exchange:admin';
const OPEN_LISTING = ['published', 'partiallyMatched', 'proposed'];

const state = { selected: null, proposals: [], listings: [], places: {}, me: null, scopes: new Set(), map: null, cursor: undefined };

function showProblem(err) {
  const box = $('problem');
  if (!err) return void (box.hidden = true);
  const problem = err instanceof ProblemError || err?.problem ? err.problem : { title: 'Something went wrong', detail: String(err?.message ?? err) };
  box.replaceChildren(el('strong', {}, problem.title ?? 'Error'), problem.detail ? ` ${problem.detail}` : '', problem.code ? el('span', { class: 'muted' }, ` (${problem.code})`) : '');
  box.hidden = false;
}

async function main() {
  const config = await (await fetch('config.json')).json();
  const here = new URL('.', location.href).href;
  const manager = new oidc.UserManager({
    authority: config.authority,
    client_id: config.clientId,
    redirect_uri: here,
    post_logout_redirect_uri: here,
    response_type: 'code',
    scope: SCOPES,
    loadUserInfo: false,
    automaticSilentRenew: false,
  });
  const query = new URLSearchParams(location.search);
  if (query.has('code') || query.has('error')) {
    try {
      await manager.signinRedirectCallback();
    } catch (err) {
      showProblem(err);
    }
    history.replaceState({}, '', here);
  }
  $('signin').addEventListener('click', () => manager.signinRedirect());
  $('signout').addEventListener('click', async () => {
    const user = await manager.getUser();
    await manager.removeUser();
    await manager.signoutRedirect({ id_token_hint: user?.id_token });
  });
  const user = await manager.getUser();
  if (!user || user.expired) {
    $('signin').hidden = false;
    $('who').textContent = 'Not signed in.';
    return;
  }
  $('signout').hidden = false;
  state.me = user.profile.org_id;
  state.scopes = new Set((user.scope ?? '').split(' '));
  const roles = [].concat(user.profile.roles ?? []);
  $('who').textContent = `${user.profile.name ?? user.profile.sub} of ${state.me} (${roles.join(', ') || 'no role'})`;
  $('main').hidden = false;
  const api = createApi(async () => {
    const current = await manager.getUser();
    if (!current || current.expired) {
      await manager.signinRedirect();
      throw new Error('the session has ended; signing in again');
    }
    return current.access_token;
  });
  // The organization's own page (its admins) and the operator's page (the protocol operator).
  state.pages = createOrganizationPages({ api, me: state.me, scopes: state.scopes, showProblem });
  state.pages.refresh();
  state.adapters = createAdapters({ gatewayUrl: config.gatewayUrl, getToken: async () => (await manager.getUser())?.access_token, showProblem });
  const { map, ready } = createMap($('map'), config.mapStyleUrl);
  state.map = map;
  window.pcxConsole = { map, state };
  for (const id of ['filter-status', 'filter-partner', 'filter-days']) $(id).addEventListener('change', () => renderMarket());
  $('whynot-form').addEventListener('submit', (e) => whyNot(api, e));
  await ready;
  await refresh(api);
  state.adapters.refresh();
  setInterval(() => state.adapters.refresh(), 5000);
  follow(api);
}

async function refresh(api) {
  try {
    const [offers, requests, proposals] = await Promise.all([api.all('/capacity-offers'), api.all('/load-requests'), api.all('/match-proposals')]);
    state.listings = [...offers.map((o) => ({ ...o, kind: 'offer' })), ...requests.map((r) => ({ ...r, kind: 'request' }))];
    state.proposals = proposals.sort((a, b) => (a.status === 'open') - (b.status === 'open') || a.createdAt.localeCompare(b.createdAt)).reverse();
    const codes = codesOf(state.listings).filter((c) => !(c in state.places));
    if (codes.length) Object.assign(state.places, (await api.get(`/console/places?codes=${codes.slice(0, 200).join(',')}`)).places);
    renderMarket();
    renderInbox(api);
    if (state.selected) await renderProposal(api, state.selected);
    showProblem(null);
  } catch (err) {
    showProblem(err);
  }
}

function renderMarket() {
  const status = $('filter-status').value;
  const partner = $('filter-partner').value;
  const days = Number($('filter-days').value || 0);
  const owners = [...new Set(state.listings.map((l) => l.ownerOrganizationId))].sort();
  const select = $('filter-partner');
  if (select.options.length !== owners.length + 1) select.replaceChildren(el('option', { value: '' }, 'all'), ...owners.map((o) => el('option', { value: o }, o === state.me ? `${o} (us)` : o)));
  select.value = owners.includes(partner) ? partner : '';
  const horizon = days ? Date.now() + days * 86_400_000 : Infinity;
  const shown = state.listings.filter((l) => (status === 'all' || OPEN_LISTING.includes(l.status)) && (!select.value || l.ownerOrganizationId === select.value) && Date.parse((l.availabilityWindow ?? l.pickupWindow)?.start ?? 0) <= horizon);
  showListings(state.map, shown, state.places);
  $('listings').replaceChildren(...shown.map(listingItem));
  $('whynot-offer').replaceChildren(...state.listings.filter((l) => l.kind === 'offer').map((l) => el('option', { value: l.id }, `${l.ownerOrganizationId} ${l.id.slice(-8)} (${l.status})`)));
  $('whynot-request').replaceChildren(...state.listings.filter((l) => l.kind === 'request').map((l) => el('option', { value: l.id }, `${l.ownerOrganizationId} ${l.id.slice(-8)} (${l.status})`)));
}

function renderInbox(api) {
  const list = $('proposals');
  if (!state.proposals.length) return void list.replaceChildren(el('li', { class: 'muted' }, 'No proposals for your organization.'));
  list.replaceChildren(...state.proposals.map((p) => proposalItem(p, state.me, p.id === state.selected, (id) => renderProposal(api, id))));
}

async function renderProposal(api, id) {
  state.selected = id;
  for (const b of document.querySelectorAll('.proposal-item')) b.setAttribute('aria-pressed', String(b.dataset.proposal === id));
  try {
    const p = await api.get(`/match-proposals/${id}`);
    let disclosed = null;
    let timeline = null;
    if (p.status === 'accepted') {
      const theirs = p.offerOwnerOrganizationId === state.me ? `/load-requests/${p.loadRequestId}` : `/capacity-offers/${p.capacityOfferId}`;
      disclosed = (await api.get(theirs)).restrictedDetails ?? null;
      timeline = timelineView(await timelineOf(api, p));
    }
    $('proposal').replaceChildren(proposalDetail(p, { me: state.me, canDecide: state.scopes.has('matches:decide'), onDecide: (x, d) => decide(api, x, d), disclosed, timeline }));
  } catch (err) {
    showProblem(err);
  }
}

async function timelineOf(api, p) {
  const tenders = await api.all(`/transport-tenders?proposal=${p.id}`);
  const revisions = {};
  for (const t of tenders) revisions[t.id] = (await api.get(`/transport-tenders/${t.id}/revisions`)).items ?? [];
  const commitments = (await Promise.all(tenders.map((t) => api.all(`/transport-commitments?tender=${t.id}`)))).flat();
  const handovers = (await Promise.all(commitments.map((c) => api.all(`/execution-handovers?commitment=${c.id}`)))).flat();
  const [reference] = await api.all(`/execution-references?proposal=${p.id}`);
  const updates = reference ? ((await api.get(`/execution-references/${reference.id}/updates`)).items ?? []) : [];
  const outcomes = reference ? ((await api.get(`/execution-outcomes?executionReferenceId=${reference.id}`)).items ?? []).reverse() : [];
  return { tenders, revisions, commitments, handovers, reference, updates, outcomes };
}

async function decide(api, p, decision) {
  try {
    await api.post(`/match-proposals/${p.id}/decisions`, { decision }, p.resourceVersion);
    showProblem(null);
  } catch (err) {
    showProblem(err);
  }
  await refresh(api);
}

async function whyNot(api, event) {
  event.preventDefault();
  try {
    const r = await api.post('/match-evaluations', { capacityOfferId: $('whynot-offer').value, loadRequestId: $('whynot-request').value });
    const failed = r.compatibility.filter((c) => c.result === 'fail');
    $('whynot-result').replaceChildren(
      el('p', {}, el('strong', {}, r.compatible ? 'Compatible' : 'Not compatible'), `: ${r.rationale?.summary ?? ''}`),
      el('ul', {}, (failed.length ? failed : r.compatibility).map((c) => el('li', {}, `${c.criterion}: ${c.result} (${c.reasonCode ?? ''})`))),
    );
    showProblem(null);
  } catch (err) {
    showProblem(err);
  }
}

/** Follows the organization's feed from now on; any event of its market refreshes the views. */
async function follow(api) {
  for (;;) {
    const page = await api.get(`/events?limit=200${state.cursor ? `&cursor=${encodeURIComponent(state.cursor)}` : ''}`).catch(() => null);
    if (!page) break;
    state.cursor = page.nextCursor;
    if (page.items.length === 0) break;
  }
  $('live').classList.add('on');
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    try {
      const page = await api.get(`/events?limit=200${state.cursor ? `&cursor=${encodeURIComponent(state.cursor)}` : ''}`);
      state.cursor = page.nextCursor;
      if (page.items.length) await refresh(api);
    } catch (err) {
      showProblem(err);
    }
  }
}

main().catch(showProblem);
