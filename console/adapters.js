// The organization's messages held by the adapter gateway (docs/adapters.md): each one with its
// reasons and where in the message they are, the message as received, and the two ways out:
// release a corrected file (it takes the path of a new message) or discard it. The gateway is
// another origin (config.gatewayUrl); it is called with the signed-in user's own token, and it
// shows only the user's organization's messages. A click's outcome is always shown: the refreshed
// list, or the problem the gateway answered. Drawn as components (./ui.js): the list of held
// messages and the one shown, whose chosen corrected file and outcome are its own state.
import { html, render, useState } from './ui.js';
import { has, statusOf, t, whenShort as local } from './format.js';

const formatWord = (format) => (has(`adapters.format.${format}`) ? t(`adapters.format.${format}`) : format);

/** A held message's title: its format and its file's name ("EDIFACT: IFTMIN-2411.edi"). */
export function heldTitle(q) {
  return `${formatWord(q.format)}: ${q.name ?? t('adapters.overHttp')}`;
}

/** One held message in the list: its title, when it came, and why it is held. */
function HeldItem({ q, onShow }) {
  return html`<li><button type="button" class="held-item" onClick=${onShow}>${`${heldTitle(q)}, ${local(q.receivedAt)}: `}<span class="muted">${q.reasons.map((r) => r.message).join('; ')}</span></button></li>`;
}

/** The list of the organization's held messages, or why there is none to show. */
function HeldList({ items, failure, onShow }) {
  if (failure) return html`<li class="muted">${t('adapters.noAnswer', { message: failure })}</li>`;
  if (!items.length) return html`<li class="muted">${t('adapters.none')}</li>`;
  return items.map((q) => html`<${HeldItem} key=${q.inboxId} q=${q} onShow=${() => onShow(q)} />`);
}

/**
 * A held message: why (each reason with where in the message it is), the message as received, and
 * for one still held the two ways out: release a corrected file, or discard it. Once either went
 * through, only its outcome is shown.
 */
function HeldMessage({ held, act, call }) {
  const [file, setFile] = useState(null);
  const [done, setDone] = useState('');
  if (done) return html`<p>${done}</p>`;
  const release = () => act(async () => {
    if (!file) throw new Error(t('adapters.chooseFile'));
    await call('POST', `/quarantine/${encodeURIComponent(held.inboxId)}/release`, await file.arrayBuffer());
    setDone(t('adapters.released'));
  });
  const discard = () => act(async () => {
    await call('POST', `/quarantine/${encodeURIComponent(held.inboxId)}/discard`);
    setDone(t('adapters.discarded'));
  });
  return html`<h3>${heldTitle(held)}</h3>
    <p class="muted">${t('adapters.received', { when: local(held.receivedAt), state: statusOf(held.state) })}</p>
    <ul class="reasons">${held.reasons.map((r, i) => html`<li key=${i}><strong>${r.message}</strong>${r.position ? ` (${t('adapters.at', { position: r.position })})` : ''}<span class="muted">${` ${r.code}`}</span></li>`)}</ul>
    <pre class="message">${held.content}</pre>
    ${held.state === 'held'
      ? html`<div class="actions">
          <label for="release-file">${`${t('adapters.correctedFile')} `}</label>
          <input type="file" id="release-file" aria-label=${t('adapters.correctedFile')} onChange=${(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
          <button type="button" onClick=${release}>${t('adapters.release')}</button>
          <button type="button" onClick=${discard}>${t('adapters.discard')}</button>
        </div>`
      : ''}`;
}

export function createAdapters({ gatewayUrl, getToken, showProblem }) {
  const section = document.getElementById('adapters');
  if (!gatewayUrl) return { refresh: async () => undefined };
  section.hidden = false;
  const list = document.getElementById('held');
  const detail = document.getElementById('held-detail');

  async function call(method, path, body) {
    const token = await getToken();
    // The session has ended: nothing to ask until the user signs in again (the banner says so).
    if (!token) throw Object.assign(new Error('signed out'), { sessionEnded: true });
    const headers = { accept: 'application/json', authorization: `Bearer ${token}` };
    const res = await fetch(`${gatewayUrl}${path}`, { method, headers, ...(body ? { body } : {}) });
    const data = await res.json().catch(() => ({ title: t('problem.http', { status: String(res.status) }) }));
    if (!res.ok) throw Object.assign(new Error(data.detail ?? data.title), { problem: data });
    return data;
  }

  async function act(fn) {
    try {
      await fn();
      showProblem(null);
    } catch (err) {
      showProblem(err.problem ? { problem: err.problem } : err);
    }
    await refresh();
  }

  async function show(item) {
    const held = await call('GET', `/quarantine/${encodeURIComponent(item.inboxId)}`);
    // Keyed by the message: another message shown starts with no file chosen and no outcome.
    render(html`<${HeldMessage} key=${held.inboxId} held=${held} act=${act} call=${call} />`, detail);
  }

  const draw = (items, failure) => render(html`<${HeldList} items=${items} failure=${failure} onShow=${(q) => show(q).catch((err) => showProblem(err))} />`, list);

  async function refresh() {
    try {
      const { items } = await call('GET', '/quarantine');
      const held = items.filter((q) => q.state === 'held');
      document.getElementById('held-count').textContent = String(held.length);
      draw(held);
    } catch (err) {
      if (err.sessionEnded) return;
      draw([], err.message);
    }
  }
  return { refresh };
}
