// The organization's messages held by the adapter gateway (docs/adapters.md): each one with its
// reasons and where in the message they are, the message as received, and the two ways out:
// release a corrected file (it takes the path of a new message) or discard it. The gateway is
// another origin (config.gatewayUrl); it is called with the signed-in user's own token, and it
// shows only the user's organization's messages. A click's outcome is always shown: the refreshed
// list, or the problem the gateway answered.
import { el } from './views.js';
import { has, statusOf, t, whenShort as local } from './format.js';

const formatWord = (format) => (has(`adapters.format.${format}`) ? t(`adapters.format.${format}`) : format);

/** A held message's title: its format and its file's name ("EDIFACT: IFTMIN-2411.edi"). */
export function heldTitle(q) {
  return `${formatWord(q.format)}: ${q.name ?? t('adapters.overHttp')}`;
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
    const file = el('input', { type: 'file', id: 'release-file', 'aria-label': t('adapters.correctedFile') });
    detail.replaceChildren(
      el('h3', {}, heldTitle(held)),
      el('p', { class: 'muted' }, t('adapters.received', { when: local(held.receivedAt), state: statusOf(held.state) })),
      el('ul', { class: 'reasons' }, held.reasons.map((r) => el('li', {}, el('strong', {}, r.message), r.position ? ` (${t('adapters.at', { position: r.position })})` : '', el('span', { class: 'muted' }, ` ${r.code}`)))),
      el('pre', { class: 'message' }, held.content),
      held.state === 'held'
        ? el(
            'div',
            { class: 'actions' },
            el('label', { for: 'release-file' }, `${t('adapters.correctedFile')} `),
            file,
            el('button', { type: 'button', onclick: () => act(async () => {
              if (!file.files?.[0]) throw new Error(t('adapters.chooseFile'));
              await call('POST', `/quarantine/${encodeURIComponent(held.inboxId)}/release`, await file.files[0].arrayBuffer());
              detail.replaceChildren(el('p', {}, t('adapters.released')));
            }) }, t('adapters.release')),
            el('button', { type: 'button', onclick: () => act(async () => {
              await call('POST', `/quarantine/${encodeURIComponent(held.inboxId)}/discard`);
              detail.replaceChildren(el('p', {}, t('adapters.discarded')));
            }) }, t('adapters.discard')),
          )
        : '',
    );
  }

  async function refresh() {
    try {
      const { items } = await call('GET', '/quarantine');
      const held = items.filter((q) => q.state === 'held');
      document.getElementById('held-count').textContent = String(held.length);
      list.replaceChildren(
        ...(held.length
          ? held.map((q) =>
              el('li', {}, el('button', { type: 'button', class: 'held-item', onclick: () => show(q).catch((err) => showProblem(err)) },
                `${heldTitle(q)}, ${local(q.receivedAt)}: `,
                el('span', { class: 'muted' }, q.reasons.map((r) => r.message).join('; ')),
              )),
            )
          : [el('li', { class: 'muted' }, t('adapters.none'))]),
      );
    } catch (err) {
      if (err.sessionEnded) return;
      list.replaceChildren(el('li', { class: 'muted' }, t('adapters.noAnswer', { message: err.message })));
    }
  }
  return { refresh };
}
