// The planner console: sign-in with the broker's OIDC provider (Authorization Code with PKCE,
// oidc-client-ts) and a session that renews itself and never drops a click (console/session.js);
// then the organization's market on a map, its proposals with their explanations in sentences and
// the decisions the user's role allows, the path of an accepted match to its outcome, all pushed
// live from the organization's event stream (GET /events/stream). Errors are shown as the
// problem's title and detail.
import { createAdapters } from './adapters.js';
import { createApi, ProblemError } from './api.js';
import { createOrganizationPages } from './organization.js';
import { createMap, focusListing, showListings } from './map.js';
import { loadPlaces } from './places.js';
import { oneAtATime } from './latest.js';
import { createGrid } from './grid.js';
import { createPartnersPage } from './partners.js';
import { createDelivered } from './delivered.js';
import { createSession } from './session.js';
import { createPosting, listingActions } from './post.js';
import { concernsSeries, createSeriesView } from './series.js';
import { explanationOf, has, laneOf, mountLanguagePicker, nameOf, statusOf, t, translatePage } from './format.js';
import { Inbox, ProposalDetail } from './proposal-view.js';
import { html, render } from './ui.js';
import { readWork, renderWork } from './work-view.js';
import { decideOnProposal, pathCommands, readDisclosed, readPath } from './proposal-actions.js';

const $ = (id) => document.getElementById(id);

const state = { selected: null, proposals: [], listings: [], byId: new Map(), places: {}, names: {}, me: null, userId: null, scopes: new Set(), map: null, cursor: undefined, seen: new Set(), notified: new Set(), notifiedWork: new Set(), workLoaded: false, waiting: 0, disclosedPrices: new Map(), loaded: false };

function showProblem(err) {
  const box = $('problem');
  if (!err) return void (box.hidden = true);
  // A session that ended is said by its own banner, not as an error.
  if (err?.sessionEnded) return;
  const problem = err instanceof ProblemError || err?.problem ? err.problem : { title: t('console.somethingWrong'), detail: String(err?.message ?? err) };
  render(html`<strong>${problem.title ?? t('console.error')}</strong>${problem.detail ? ` ${problem.detail}` : ''}${problem.code ? html`<span class="muted">${` (${problem.code})`}</span>` : ''}`, box);
  box.hidden = false;
}

/** A notice that stays until the next one: what became of a command sent after a new sign-in. */
/** What a click did, above the page: "Done: Accept revision 2." (`title` in bold, the problem's `code` muted). */
function notice(title, text = '', code = '') {
  const box = $('notice');
  box.hidden = !title && !text;
  render(html`${title ? html`<strong>${`${title}: `}</strong>` : ''}${text}${code ? html`<span class="muted">${` (${code})`}</span>` : ''}`, box);
}

/** The live marker says what is true: connected to the stream, reconnecting, or signed out. */
function setLive(mode, detail = '') {
  const marker = $('live');
  marker.className = `live ${mode}`;
  marker.textContent = { on: t('live.on'), connecting: t('live.connecting'), off: t('live.off'), ended: t('live.ended') }[mode];
  marker.title = detail;
}

/** A role in words ("planner", "Disponent"), else as the provider names it. */
const roleWord = (role) => (has(`console.role.${role}`) ? t(`console.role.${role}`) : role);

async function main() {
  // The page's own words in the planner's language, and the picker to choose another (its slot is
  // in the header; a page without it still works, in the browser's language).
  translatePage(document);
  const slot = $('language-slot');
  if (slot) mountLanguagePicker(slot);
  const config = await (await fetch('config.json')).json();
  const { session, user } = await signIn(config);
  if (!user) return showWelcome();
  const api = await startSession(session, user);
  const mapReady = mountViews(api, session, config);
  setupNotifications();
  await mapReady;
  await refresh(api);
  state.loaded = true;
  state.adapters.refresh();
  setInterval(() => state.adapters.refresh(), 5000);
  follow(api, session);
}

/** The OpenID Connect session: back from the provider, or as kept; the user when signed in (and not expired beyond renewal). */
async function signIn(config) {
  const here = new URL('.', location.href).href;
  const manager = new oidc.UserManager({
    authority: config.authority,
    client_id: config.clientId,
    redirect_uri: here,
    post_logout_redirect_uri: here,
    response_type: 'code',
    // The scope vocabulary from the broker (domain/scopes.ts), not a second list here.
    scope: config.scope,
    loadUserInfo: false,
    // Renewed with the refresh token a minute before it expires: a working day without a redirect.
    automaticSilentRenew: true,
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
  const session = createSession(manager);
  $('welcome-signin').addEventListener('click', () => session.signIn());
  $('session-signin').addEventListener('click', () => session.signIn());
  $('signout').addEventListener('click', async () => {
    const user = await manager.getUser();
    await manager.removeUser();
    await manager.signoutRedirect({ id_token_hint: user?.id_token });
  });
  let user = await manager.getUser();
  // Back after the access token expired (a tab left for a while): renewed if the sign-in still holds.
  if (user?.expired && user.refresh_token) user = await manager.signinSilent().catch(() => null);
  return { session, user: user && !user.expired ? user : undefined };
}

/** Signed out: what the console is for and how to get in (its own Sign in button), not an empty page. */
function showWelcome() {
  $('welcome').hidden = false;
  $('who').textContent = t('console.notSignedIn');
  const kept = sessionStorage.getItem('pcx-console-pending-command');
  if (kept) notice('', t('console.keptBeforeSignIn', { label: JSON.parse(kept).label ?? t('console.aCommand') }));
}

/** Who is signed in, in the header and the state; the API client, with what the last session kept sent. */
async function startSession(session, user) {
  $('signout').hidden = false;
  state.me = user.profile.org_id;
  state.userId = user.profile.sub;
  state.userName = user.profile.name ?? user.profile.sub;
  state.scopes = new Set((user.scope ?? '').split(' '));
  state.seen = new Set(JSON.parse(localStorage.getItem(`pcx-seen-${state.userId}`) ?? '[]'));
  const roles = [].concat(user.profile.roles ?? []);
  const who = () => t('console.who', { name: user.profile.name ?? user.profile.sub, organization: nameOf(state.me, state.names), roles: roles.map(roleWord).join(', ') || t('console.noRole') });
  $('who').textContent = who();
  $('main').hidden = false;
  // Where the keyboard was last: a focused button removed by a redraw leaves the focus on <body>.
  document.addEventListener('focusin', (event) => (state.focusInProposal = $('proposal').contains(event.target)));
  const api = (state.api = createApi(session, (command) => {
    // The session ended under a click: kept with its key, sent after the next sign-in.
    session.keep({ ...command, userId: state.userId });
    showSessionEnded(command.label);
  }));
  session.onChange(({ ended }) => {
    if (ended) showSessionEnded();
    else $('session').hidden = true;
  });
  await resumeKept(api, session);
  state.names = await partnerNames(api);
  $('who').textContent = who();
  // Colleagues by name where the user may read them (an admin); others' decisions say "a colleague".
  state.people = new Map();
  if (state.scopes.has('connectors:manage')) {
    api.all('/users', 2000).then((users) => void (state.people = new Map(users.filter((u) => u.name).map((u) => [u.userId, u.name])))).catch(() => undefined);
  }
  return api;
}

/** The views the user's scopes open: posting, partners, the organization's pages, deliveries, series, adapters, the map and the grid; resolves when the map can draw. */
function mountViews(api, session, config) {
  const publishes = state.scopes.has('capacity:publish') || state.scopes.has('loads:publish');
  if (publishes) {
    state.posting = createPosting({ api, state, notice, onPosted: () => refresh(api), slot: $('post-slot') });
    state.posting.refresh();
    $('post').hidden = false;
  }
  // Partners (its admins), the organization's own page (its admins) and the operator's page (the protocol operator).
  if (state.scopes.has('relationships:manage')) {
    createPartnersPage({ api, state, notice, onChanged: async () => void (state.names = await partnerNames(api)) }).refresh();
  }
  state.pages = createOrganizationPages({ api, me: state.me, scopes: state.scopes, showProblem });
  state.pages.refresh();
  // What the exchange delivered: for whoever may read the commitments it counts.
  if (state.scopes.has('commitments:read')) state.delivered = createDelivered({ api, places: state.places });
  // Recurring trucks and loads: the organization's series, for whoever may publish (the API's read scopes).
  if (publishes) {
    state.series = createSeriesView({ api, state, notice, onChanged: () => ((state.seriesStale = true), refresh(api)), onShow: showListing });
    state.seriesStale = true;
  }
  state.adapters = createAdapters({ gatewayUrl: config.gatewayUrl, getToken: () => session.token().catch(() => undefined), showProblem });
  const { map, ready } = createMap($('map'), config.mapStyleUrl);
  state.map = map;
  window.pcxConsole = { map, state };
  state.grid = createGrid({
    state,
    api,
    actionsFor: (l) => (l.ownerOrganizationId === state.me && state.scopes.has(l.kind === 'offer' ? 'capacity:publish' : 'loads:publish') ? listingActions(l, { api, names: state.names, onDone: () => refresh(api) }) : null),
    onChosen: (id, { fromMap }) => {
      state.chosen = id;
      drawMap();
      const listing = state.byId.get(id);
      if (listing && !fromMap) focusListing(state.map, listing, state.places);
    },
  });
  for (const id of ['grid-status', 'grid-kind', 'grid-partner', 'grid-body', 'grid-from', 'grid-until', 'grid-weight', 'grid-pallets', 'grid-radius', 'grid-text', 'grid-near']) $(id).addEventListener(id === 'grid-text' ? 'input' : 'change', () => drawMap());
  $('whynot-form').addEventListener('submit', (e) => whyNot(api, e));
  return ready;
}

function showSessionEnded(label) {
  const box = $('session');
  $('session-text').textContent = label ? t('session.endedKept', { label }) : t('session.endedNothingLost');
  box.hidden = false;
  setLive('ended');
}

/** A command kept when the session ended: sent now, with its key (answered once), and the user told how it went. */
async function resumeKept(api, session) {
  const kept = session.takeKept(state.userId);
  if (!kept) return;
  const label = kept.command.label ?? `${kept.command.method} ${kept.command.path}`;
  if (kept.refused) return notice(t('console.notSent'), t('console.notSent.text', { label, reason: kept.refused }));
  try {
    await api.resend(kept.command);
    notice(t('console.doneAfterSignIn'), `${label}.`);
  } catch (err) {
    const problem = err?.problem ?? { title: String(err?.message ?? err) };
    notice(t('console.notDone'), `${label}. ${problem.title ?? ''}${problem.detail ? `: ${problem.detail}` : ''}`, problem.code);
  }
}

async function partnerNames(api) {
  try {
    state.partnerList = (await api.get('/partners')).items;
    state.posting?.refresh();
    return Object.fromEntries(state.partnerList.map((p) => [p.organizationId, p.name]));
  } catch {
    return state.names;
  }
}

/**
 * Reads the views again, one reading at a time (console/latest.js): a reading that started before
 * an event and ended after a later one's would put its older lists on screen last (seen under
 * load: a proposal made while a reading was under way never appeared).
 */
const refresh = oneAtATime(readViews);
const refreshWork = oneAtATime(async (api) => {
  try {
    // Whether the organization has an active partner at all (a relationship may have changed).
    state.names = await partnerNames(api);
    await renderWorkQueue(api);
  } catch (err) {
    showProblem(err);
  }
});

async function readViews(api) {
  try {
    const [offers, requests, proposals] = await Promise.all([api.all('/capacity-offers'), api.all('/load-requests'), api.all('/match-proposals')]);
    state.listings = [...offers.map((o) => ({ ...o, kind: 'offer' })), ...requests.map((r) => ({ ...r, kind: 'request' }))];
    state.byId = new Map(state.listings.map((l) => [l.id, l]));
    state.proposals = proposals.sort((a, b) => (a.status === 'open') - (b.status === 'open') || a.createdAt.localeCompare(b.createdAt)).reverse();
    await loadPlaces(api, state.listings, state.places);
    const owners = [...new Set([...state.listings.map((l) => l.ownerOrganizationId), ...state.proposals.flatMap((p) => [p.offerOwnerOrganizationId, p.requestOwnerOrganizationId])])];
    if (owners.some((o) => !(o in state.names))) state.names = await partnerNames(api);
    renderMarket();
    renderInbox(api);
    if (state.selected) await renderProposal(api, state.selected);
    state.delivered?.refresh();
    // The series are read again when an event concerned them (a series' own, an occurrence's listing's).
    if (state.seriesStale) {
      state.seriesStale = false;
      await state.series?.refresh();
    }
    // Not awaited: its lists take a moment, and the next reading of the views above (a proposal
    // just made) must not wait for them; one reading of the queue at a time, like the views.
    refreshWork(api);
    showProblem(null);
  } catch (err) {
    showProblem(err);
  }
}

/** A listing in the grid (an occurrence of a series): its row chosen, shown whatever the status filter hides. */
function showListing(id) {
  const listing = state.byId.get(id);
  if (!listing) return;
  if (!state.grid.shown().some((l) => l.id === id)) {
    $('grid-status').value = 'all';
    $('grid-text').value = '';
  }
  state.grid.choose(id);
  document.querySelector(`#grid-rows tr[data-listing="${CSS.escape(id)}"] button.choose`)?.focus();
}

const ctx = () => ({ me: state.me, userId: state.userId, people: state.people, names: state.names, places: state.places, listings: state.byId, priceOf });

/** The truck's price as far as this organization knows it: its own offer's, or the one an accepted match disclosed. */
function priceOf(p) {
  if (p.offerOwnerOrganizationId === state.me) return state.byId.get(p.capacityOfferId)?.restrictedDetails?.price;
  return state.disclosedPrices.get(p.id);
}

/** The map draws what the grid shows (its filters), the chosen listing highlighted. */
function drawMap() {
  if (!state.map || !state.grid) return;
  showListings(state.map, state.grid.shown(), state.places, { chosen: state.chosen, onPick: (id) => state.grid.choose(id, { fromMap: true }) });
}

function renderMarket() {
  state.grid.render();
  drawMap();
  const option = (l) => html`<option key=${l.id} value=${l.id}>${`${nameOf(l.ownerOrganizationId, state.names)}: ${laneOf(l, state.places)} (${statusOf(l.status)})`}</option>`;
  // The pair being chosen survives live updates (the options are redrawn by difference).
  for (const [id, kind] of [['whynot-offer', 'offer'], ['whynot-request', 'request']]) {
    const chosen = $(id).value;
    render(state.listings.filter((l) => l.kind === kind).map(option), $(id));
    if (chosen && state.byId.has(chosen)) $(id).value = chosen;
  }
  // A newcomer with nothing on the market is shown where to start.
  if (!state.listings.some((l) => l.ownerOrganizationId === state.me) && !$('post').hidden) $('post').open = true;
}

/** New: open, not yet decided by the organization, not yet opened by this user. */
const isNew = (p) => p.status === 'open' && !(p.decisions ?? []).some((d) => d.organizationId === state.me) && !state.seen.has(p.id);

/**
 * The work queue: what waits for the organization and what it waits for, with the count of the
 * former in the tab's title; a notification for each item newly waiting (after the first reading).
 */
async function renderWorkQueue(api) {
  const facts = await readWork(api, state.scopes);
  // No partner, no market: said where the planner looks first, with what to do about it.
  const partnered = (state.partnerList ?? []).some((p) => p.relationship === 'active');
  const notice = state.partnerList && !partnered ? t(state.scopes.has('relationships:manage') ? 'work.noPartner.admin' : 'work.noPartner.planner') : undefined;
  const queue = renderWork($('work-slot'), { ...facts, proposals: state.proposals }, { ...ctx(), proposals: state.proposals, onOpen: (id) => openProposal(api, id) }, notice);
  state.waiting = queue.forYou.length;
  document.title = state.waiting ? t('console.title.waiting', { count: state.waiting }) : t('page.title');
  for (const item of queue.forYou) {
    if (state.workLoaded && !state.notifiedWork.has(item.key) && item.kind !== 'proposal') notifyWork(item);
    state.notifiedWork.add(item.key);
  }
  state.workLoaded = true;
}

/** Opens a proposal's detail from the queue and brings it into view, its heading focused. */
async function openProposal(api, id) {
  await renderProposal(api, id);
  focusHeading($('proposal'), { scroll: true });
}

/** Focuses a section's heading (reachable by script, not in the tab order). */
function focusHeading(box, { scroll }) {
  const heading = box.querySelector('h3');
  if (!heading) return;
  heading.tabIndex = -1;
  heading.focus({ preventScroll: !scroll });
  if (scroll) heading.scrollIntoView({ block: 'nearest' });
}

function notifyWork(item) {
  if (!('Notification' in window) || Notification.permission !== 'granted') return;
  new Notification(t('notify.work.title'), { body: t(`work.forYou.${item.kind}`, { partner: nameOf(item.partner, state.names), revision: item.revision ?? '' }), tag: item.key });
}

function renderInbox(api) {
  const list = $('proposals');
  const fresh = state.proposals.filter(isNew);
  $('new-count').textContent = fresh.length ? t('console.newCount', { count: fresh.length }) : '';
  for (const p of fresh) if (state.loaded && !state.notified.has(p.id)) notify(p);
  for (const p of fresh) state.notified.add(p.id);
  // The page's placeholder goes when the inbox is first drawn; then each drawing is a difference
  // (a line keeps the keyboard focus through the redraws events bring).
  if (!list.dataset.drawn) list.replaceChildren(), (list.dataset.drawn = 'true');
  render(html`<${Inbox} proposals=${state.proposals} ctx=${ctx()} selected=${state.selected} isNew=${isNew} onSelect=${(id) => renderProposal(api, id)} />`, list);
}

function setupNotifications() {
  const button = $('notify');
  if (!('Notification' in window) || Notification.permission !== 'default') return;
  button.hidden = false;
  button.addEventListener('click', async () => {
    await Notification.requestPermission();
    button.hidden = true;
  });
}

function notify(p) {
  if (!('Notification' in window) || Notification.permission !== 'granted') return;
  const request = state.byId.get(p.loadRequestId);
  const counterpart = p.offerOwnerOrganizationId === state.me ? p.requestOwnerOrganizationId : p.offerOwnerOrganizationId;
  new Notification(t('notify.title'), { body: t('notify.body', { lane: request ? laneOf(request, state.places) : t('notify.aMatch'), partner: nameOf(counterpart, state.names) }), tag: p.id });
}

async function renderProposal(api, id) {
  state.selected = id;
  if (!state.seen.has(id)) {
    state.seen.add(id);
    localStorage.setItem(`pcx-seen-${state.userId}`, JSON.stringify([...state.seen].slice(-500)));
  }
  renderInbox(api);
  try {
    const p = await api.get(`/match-proposals/${id}`);
    let disclosed = null;
    let facts = null;
    let commands = {};
    if (p.status === 'accepted') {
      disclosed = await readDisclosed(api, p, state.me);
      if (disclosed?.price && !state.disclosedPrices.has(p.id)) {
        state.disclosedPrices.set(p.id, disclosed.price);
        renderInbox(api);
      }
      facts = await readPath(api, p);
      // A tender between its last accept and its commitment ("accepting") settles without an event
      // of its own to every reader: read the proposal again shortly, until it has settled.
      if (facts.tenders.some((x) => x.status === 'accepting')) {
        clearTimeout(state.settling);
        state.settling = setTimeout(() => state.selected === p.id && renderProposal(api, p.id), 1000);
      }
      commands = {
        ...pathCommands({ api, p, facts, me: state.me, scopes: state.scopes, names: state.names, notice, reread: () => renderProposal(api, p.id) }),
        // The shipper's own load (its addresses fill the handover) and the truck's disclosed price (the tender's starting price).
        request: state.byId.get(p.loadRequestId),
        userName: state.userName,
        tenderPrice: p.offerOwnerOrganizationId === state.me ? undefined : state.disclosedPrices.get(p.id),
      };
    }
    const box = $('proposal');
    // Keyboard focus is kept through an action: the button pressed may be gone from the new
    // drawing (Accept, once accepted); focus then goes to the proposal's heading, not the page's top.
    const hadFocus = box.contains(document.activeElement) || (state.focusInProposal && document.activeElement === document.body);
    // The page's placeholder text goes when the first proposal is drawn; from then on each drawing
    // is a difference, keyed by the proposal (another proposal's forms start afresh).
    if (!box.dataset.drawn) box.replaceChildren(), (box.dataset.drawn = 'true');
    const detailCtx = { ...ctx(), ...commands, canDecide: state.scopes.has('matches:decide'), onDecide: (x, d) => decide(api, x, d) };
    render(html`<${ProposalDetail} key=${p.id} p=${p} ctx=${detailCtx} disclosed=${disclosed} facts=${facts} />`, box);
    if (hadFocus && !box.contains(document.activeElement)) focusHeading(box, { scroll: false });
  } catch (err) {
    showProblem(err);
  }
}

async function decide(api, p, decision) {
  try {
    await decideOnProposal(api, p, decision, { me: state.me, request: state.byId.get(p.loadRequestId), places: state.places });
    showProblem(null);
  } catch (err) {
    showProblem(err);
  }
  await refresh(api);
}

async function whyNot(api, event) {
  event.preventDefault();
  try {
    const r = await api.post('/match-evaluations', { capacityOfferId: $('whynot-offer').value, loadRequestId: $('whynot-request').value }, undefined, t('action.evaluate'));
    const failed = r.compatibility.filter((c) => c.result === 'fail');
    const sentences = explanationOf({ compatibility: failed.length ? failed : r.compatibility }, { places: state.places, request: state.byId.get($('whynot-request').value) });
    // The verdict and the criteria in sentences of the planner's language; the broker's own summary
    // (English, for logs and connectors) says the same and is not shown.
    render(html`<p><strong>${r.compatible ? t('whynot.compatible') : t('whynot.notCompatible')}</strong></p>
      <ul>${sentences.map((s) => html`<li class=${s.ok ? 'pass' : 'fail'}>${`${!s.ok ? '✗' : s.applies ? '✓' : '–'} ${s.text}`}</li>`)}</ul>`, $('whynot-result'));
    showProblem(null);
  } catch (err) {
    showProblem(err);
  }
}

/** The event an SSE message carries (its data lines), or null. */
function dataOf(block) {
  try {
    return JSON.parse(block.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).replace(/^ /, '')).join('\n'));
  } catch {
    return null;
  }
}

/**
 * Follows the organization's feed from now on, pushed (GET /events/stream, read with fetch: the
 * token goes in a header, which EventSource cannot send); any event refreshes the views. The
 * stream ends with its token: opened again at once with the renewed one and the last id, so
 * nothing is missed. The marker says "live" only while a stream is open.
 */
async function follow(api, session) {
  // To the feed's end first: the views were read before, so what happened since (a proposal made
  // while the page loaded) would otherwise be passed over until the next event. One refresh after.
  let passedOver = false;
  for (;;) {
    const page = await api.get(`/events?limit=200${state.cursor ? `&cursor=${encodeURIComponent(state.cursor)}` : ''}`).catch(() => null);
    if (!page) break;
    state.cursor = page.nextCursor;
    if (page.items.length === 0) break;
    passedOver = true;
  }
  if (passedOver) await refresh(api).catch(showProblem);
  let pending;
  const refreshSoon = () => {
    clearTimeout(pending);
    pending = setTimeout(() => refresh(api), 150);
  };
  for (let failures = 0; ; ) {
    try {
      if (!session.ended) setLive('connecting');
      const token = await session.token();
      // The stream is read as it arrives (Server-Sent Events): the SDK's calls answer whole JSON documents.
      const res = await fetch('/events/stream', { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...(state.cursor ? { 'last-event-id': state.cursor } : {}) } });
      if (res.status === 401) {
        await session.token({ renew: true });
        continue;
      }
      if (!res.ok) {
        const problem = await res.json().catch(() => ({ title: t('problem.http', { status: String(res.status) }) }));
        throw new ProblemError({ status: res.status, ...problem }, { method: 'GET', path: '/events/stream' });
      }
      setLive('on');
      failures = 0;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: ?(.*)$/m.exec(block)?.[1];
          const type = /^event: ?(.*)$/m.exec(block)?.[1];
          if (type === 'event' && id) {
            state.cursor = id;
            if (!state.seriesStale && concernsSeries(dataOf(block))) state.seriesStale = true;
            refreshSoon();
          }
        }
      }
    } catch (err) {
      if (err?.sessionEnded) {
        // Signed out: nothing to follow until the user signs in again (the banner says so).
        return;
      }
      failures++;
      setLive('off', String(err?.message ?? err));
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, 500 * 2 ** Math.min(failures, 6))));
  }
}

main().catch(showProblem);
