// Inviting a partner (an organization's admin): find the organization by name in the exchange's
// directory (GET /directory, curated by the operator: name, country, what it does, and how we
// already stand with it), choose it and the scopes, invite. An organization the directory does not
// list can still be invited by its id. A Preact component (./ui.js): what was typed, found and
// chosen is its own state, kept while the partners list around it is redrawn.
import { html, render, useEffect, useRef, useState } from './ui.js';
import { countryName, t } from './format.js';

/** Relationships that stand in the way of a new invitation (one relationship per pair at a time). */
const OPEN = ['draft', 'requested', 'active', 'suspended'];

function Found({ entry, chosen, onChoose }) {
  const taken = OPEN.includes(entry.relationship);
  const facts = [entry.country ? countryName(entry.country) : '', entry.description ?? ''].filter(Boolean).join(' · ');
  return html`<li>
    <label class=${taken ? 'choice muted' : 'choice'}>
      <input type="radio" name="invite-choice" value=${entry.organizationId} checked=${chosen === entry.organizationId} disabled=${taken} onChange=${() => onChoose(entry)} />
      <strong>${entry.name}</strong>${facts ? ` · ${facts}` : ''}${taken ? ` (${t(`invite.already.${entry.relationship}`)})` : ''}
    </label>
  </li>`;
}

function InviteForm({ api, scopes, scopeWords, onInvite }) {
  const [query, setQuery] = useState('');
  const [found, setFound] = useState(undefined);
  const [chosen, setChosen] = useState(undefined);
  const [typedId, setTypedId] = useState('');
  const [granted, setGranted] = useState(scopes);
  const [problem, setProblem] = useState('');
  // Bumped after an invitation, so the list is read again (the organization now shows as invited).
  const [round, setRound] = useState(0);
  const asked = useRef(0);

  // The directory as typed, a quarter second after the last key (every listed organization when empty).
  useEffect(() => {
    const ask = ++asked.current;
    const timer = setTimeout(async () => {
      try {
        const answer = await api.get(query.trim() ? `/directory?q=${encodeURIComponent(query.trim())}` : '/directory');
        if (ask === asked.current) setFound(answer.items);
      } catch (err) {
        if (ask === asked.current && !err?.sessionEnded) setProblem(`${err?.problem?.title ?? t('problem.refused')}${err?.problem?.detail ? `: ${err.problem.detail}` : ''}`);
      }
    }, 250);
    return () => clearTimeout(timer);
  }, [query, round]);

  const target = typedId.trim() ? { organizationId: typedId.trim(), name: typedId.trim() } : chosen;
  const submit = async (event) => {
    event.preventDefault();
    setProblem('');
    if (!target) return setProblem(t('invite.chooseFirst'));
    try {
      await onInvite(target, granted);
      setChosen(undefined);
      setTypedId('');
      setQuery('');
      setRound(round + 1);
    } catch (err) {
      if (!err?.sessionEnded) setProblem(`${err?.problem?.title ?? t('partners.notInvited')}${err?.problem?.detail ? `: ${err.problem.detail}` : ''}`);
    }
  };
  const toggle = (scope) => setGranted(granted.includes(scope) ? granted.filter((s) => s !== scope) : [...granted, scope]);

  return html`<form id="invite-form" class="register" onSubmit=${submit}>
    <label for="invite-search">${t('invite.search')}</label>
    <input id="invite-search" type="search" autocomplete="off" value=${query} placeholder=${t('invite.searchHint')} aria-describedby="invite-found-count" onInput=${(e) => setQuery(e.currentTarget.value)} />
    <fieldset class="invite-found">
      <legend id="invite-found-count">${found === undefined ? t('invite.searching') : t('invite.foundCount', { count: found.length, value: String(found.length) })}</legend>
      ${found?.length ? html`<ul class="directory">${found.map((entry) => html`<${Found} key=${entry.organizationId} entry=${entry} chosen=${chosen?.organizationId} onChoose=${setChosen} />`)}</ul>` : ''}
    </fieldset>
    <details class="invite-by-id">
      <summary>${t('invite.byId')}</summary>
      <label for="invite-organization">${t('partners.invite.organization')}</label>
      <input id="invite-organization" value=${typedId} placeholder="org-..." onInput=${(e) => setTypedId(e.currentTarget.value)} />
    </details>
    <fieldset class="scopes">
      <legend>${t('partners.mayNow')}</legend>
      ${scopes.map((s) => html`<label class="scope"><input type="checkbox" value=${s} checked=${granted.includes(s)} onChange=${() => toggle(s)} /> ${scopeWords(s)}</label>`)}
    </fieldset>
    <button type="submit">${target ? t('invite.button', { name: target.name }) : t('partners.invite.button')}</button>
    <p class="field-error" role="alert">${problem}</p>
  </form>`;
}

/** Draws the form into `container` (once; it keeps its own state through later redraws of the page around it). */
export function mountInviteForm(container, props) {
  render(html`<${InviteForm} ...${props} />`, container);
}
