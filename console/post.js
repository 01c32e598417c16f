// Posting: a truck (capacity offer) or a load (load request) from a form in the planner's terms:
// places found by name (GET /console/place-search) or an area drawn on the map as a circle, dates
// and times in the planner's zone, capacity in t / pallets / ldm, the body type, a price only the
// partner of an accepted match sees, and who may see it. "Post" creates and publishes; "Save as
// draft" only creates (published later from the grid). "Edit" on a draft in the grid fills the
// form with it; "Save changes" sends a PATCH (JSON merge patch, If-Match its version). The
// broker's problems are shown next to the fields their pointers name.
//
// Drawn as components (./ui.js) with their own state: the form's values, the areas drawn, the draft
// edited and the problems shown are the form's; a refresh of the partners keeps what was typed and
// ticked. What the values become as the API's body, a draft as the values, the PATCH and which field
// a problem's pointer names are console/post-model.js' pure functions.
import { upgradeDateTimeInput } from './datetime.js';
import { html, render, useEffect, useLayoutEffect, useRef, useState } from './ui.js';
import { countryName, localName, nameOf, placeOf, statusOf, t } from './format.js';
import { drawCircle, showDraftAreas } from './map.js';
import { BODY_TYPES, EQUIPMENT, KIND_OF_PATH, bodyOf, emptyValues, patchOf, placeText, problemsOf, valuesOf } from './post-model.js';

/** The posting form of this page (listingActions' "Edit" fills it). */
let current = null;

/** The input a field's problem marks invalid (its first). */
const INVALID_INPUT = { from: 'from', to: 'to', first: 'first-start', second: 'second-start', capacity: 'weight', body: 'body', goods: 'adr', price: 'price', expires: 'expires', visibility: 'visibility' };
const NO_PROBLEMS = { fields: {}, summary: '' };

/** A field's problem, beside it (a live region: said when it changes). */
const ErrorSlot = ({ id, text }) => html`<span class="field-error" id=${`post-${id}-error`} role="alert">${text ?? ''}</span>`;

/**
 * A date and time in the planner's writing, with a calendar (console/datetime.js' field, made of
 * this input once drawn). Its value is the field's own property: read through the ref as the
 * planner types or picks (`onValue`; `onCommit` once they move on), and written only when the form
 * gives another (a draft edited, the form emptied), never as a prop.
 */
function DateInput({ id, value, onValue, onCommit, required = false, invalid }) {
  const ref = useRef(null);
  const handlers = useRef({});
  handlers.current = { onValue, onCommit };
  useLayoutEffect(() => {
    const input = ref.current;
    upgradeDateTimeInput(input, value);
    // Registered after the field's own listeners: they hear the value just typed.
    input.addEventListener('input', () => handlers.current.onValue(input.value));
    input.addEventListener('change', () => handlers.current.onCommit?.(input.value));
  }, []);
  useLayoutEffect(() => {
    if (ref.current.value !== value) ref.current.value = value;
  }, [value]);
  return html`<input ref=${ref} id=${`post-${id}`} name=${id} aria-describedby=${`post-${id}-error`} required=${required} aria-invalid=${invalid ? 'true' : undefined} autocomplete="off" spellcheck=${false} />`;
}

/**
 * A place field: type a name, pick from what the broker finds; the UN/LOCODE travels in brackets.
 * Its "Circle on the map" button draws the area instead (the words of the circle then fill it).
 */
function PlaceField({ id, api, value, onText, inputRef, hint, drawing, onDraw, error }) {
  const [found, setFound] = useState([]);
  const timer = useRef();
  useEffect(() => () => clearTimeout(timer.current), []);
  const input = (e) => {
    const text = e.currentTarget.value;
    onText(text);
    clearTimeout(timer.current);
    const q = text.trim();
    if (q.length < 2 || /\([A-Z]{2}[A-Z0-9]{3}\)$/.test(q)) return;
    timer.current = setTimeout(async () => {
      try {
        const { items } = await api.get(`/console/place-search?q=${encodeURIComponent(q)}`);
        setFound(items);
      } catch {
        // A search that failed leaves the list as it was; typing a code still works.
      }
    }, 200);
  };
  // The list names each place's country: "Hamburg, Germany (DEHAM)" is told from "Hamburg, United States (USHAM)".
  return html`<div class="field" id=${`post-${id}-field`}>
      <label for=${`post-${id}`}>${t(`post.${id}`)}</label>
      <input id=${`post-${id}`} name=${id} aria-describedby=${`post-${id}-error`} aria-invalid=${error ? 'true' : undefined} list=${`post-${id}-list`} autocomplete="off" placeholder=${t('post.placeholder')} required ref=${inputRef} value=${value} onInput=${input} />
      <button type="button" class="draw" id=${`post-${id}-draw`} aria-label=${t(`post.drawLabel.${id}`)} aria-pressed=${drawing ? 'true' : 'false'} onClick=${onDraw}>${t('post.drawCircle')}</button>
      <span class="hint" id=${`post-${id}-hint`}>${hint}</span>
      <${ErrorSlot} id=${id} text=${error} />
    </div>
    <datalist id=${`post-${id}-list`}>${found.map((p) => html`<option key=${p.code} value=${`${localName(p)}, ${countryName(p.country)} (${p.code})`} />`)}</datalist>`;
}

/** A number of the form (capacity, price, temperature): its label beside it. */
function NumberInput({ id, value, onValue, invalid, ...attrs }) {
  return html`<input id=${`post-${id}`} name=${id} aria-describedby=${`post-${id}-error`} aria-invalid=${invalid ? 'true' : undefined} type="number" ...${attrs} value=${value} onInput=${(e) => onValue(e.currentTarget.value)} />`;
}

/** Who sees it: every partner, or those ticked (the active partners; all ticked unless chosen otherwise). */
function Visibility({ mode, onMode, partners, ticked, onTick, error }) {
  return html`<div class="field" id="post-visibility-field">
    <label for="post-visibility">${t('post.seenBy')}</label>
    <select id="post-visibility" aria-describedby="post-visibility-error" aria-invalid=${error ? 'true' : undefined} value=${mode} onChange=${(e) => onMode(e.currentTarget.value)}>
      <option value="open">${t('post.allPartners')}</option>
      <option value="partners">${t('post.tickedPartners')}</option>
    </select>
    <div class="partners" id="post-partners">
      ${partners.length
        ? partners.map((p) => html`<label key=${p.organizationId}><input type="checkbox" value=${p.organizationId} checked=${ticked.includes(p.organizationId)} onChange=${() => onTick(p.organizationId)} /> ${p.name}</label>`)
        : html`<p class="muted">${t('post.noPartners')}</p>`}
    </div>
    <${ErrorSlot} id="visibility" text=${error} />
  </div>`;
}

/**
 * The goods and what they need, as the broker matches them: ADR classes, a temperature range,
 * equipment; a load's UN numbers too (the exact dangerous goods, disclosed to the carrier with the
 * other restricted details once a match is accepted).
 */
function Goods({ v, set, truck, error }) {
  const text = (id, key, attrs) => html`<input id=${`post-${id}`} name=${id} aria-describedby=${`post-${id}-error`} ...${attrs} value=${v[key]} onInput=${(e) => set(key, e.currentTarget.value)} />`;
  const toggle = (e) => set('equipment', v.equipment.includes(e) ? v.equipment.filter((x) => x !== e) : [...v.equipment, e]);
  return html`<fieldset class="goods" id="post-goods-field">
    <legend>${truck ? t('post.goodsTruck') : t('post.goods')}</legend>
    <span class="pair"><label for="post-adr">${t('post.adr')}</label>${text('adr', 'adr', { placeholder: t('post.adrPlaceholder'), inputmode: 'decimal', 'aria-invalid': error ? 'true' : undefined })}</span>
    <span class="pair" hidden=${truck}><label for="post-un">${t('post.un')}</label>${text('un', 'un', { placeholder: t('post.unPlaceholder'), inputmode: 'numeric' })}</span>
    <span class="pair"><label for="post-temp-min">${t('post.tempMin')}</label><${NumberInput} id="temp-min" min="-40" max="40" step="1" inputmode="numeric" value=${v.tempMin} onValue=${(x) => set('tempMin', x)} /></span>
    <span class="pair"><label for="post-temp-max">${t('post.tempMax')}</label><${NumberInput} id="temp-max" min="-40" max="40" step="1" inputmode="numeric" value=${v.tempMax} onValue=${(x) => set('tempMax', x)} /></span>
    <span class="equipment">${EQUIPMENT.map((e) => html`<label key=${e} class="scope"><input type="checkbox" value=${e} name="post-equipment" checked=${v.equipment.includes(e)} onChange=${() => toggle(e)} /> ${statusOf(e)}</label>`)}</span>
    <${ErrorSlot} id="goods" text=${error} />
  </fieldset>`;
}

/**
 * "Circle on the map" for the form's two places: the next drag on the map draws the field's area;
 * its centre and radius are said as it grows (the field's hint), and the drawn circle becomes the
 * field's words and chosen area. A second click cancels the drawing.
 */
function useCircleDrawing({ mapOf, refs, latest, set, setChosen }) {
  const [hints, setHints] = useState({ from: '', to: '' });
  const [drawing, setDrawing] = useState({ from: false, to: false });
  const cancels = useRef({});
  const setHint = (id, text) => setHints((h) => ({ ...h, [id]: text }));

  function draw(id) {
    // The map as it is at the click (it is made after the form).
    const map = mapOf();
    if (!map) return;
    if (cancels.current[id]) return cancels.current[id]();
    setHint(id, t('post.drawing'));
    setDrawing((d) => ({ ...d, [id]: true }));
    document.getElementById('map').scrollIntoView({ block: 'center' });
    cancels.current[id] = drawCircle(map, {
      onChange: (circle) => {
        setHint(id, t('post.drawingNow', { circle: placeOf(circle) }));
        setChosen((c) => ({ ...c, [id]: { area: circle, text: placeOf(circle) } }));
      },
      onDone: (circle) => {
        cancels.current[id] = null;
        setDrawing((d) => ({ ...d, [id]: false }));
        if (circle) {
          const text = placeOf(circle);
          setChosen((c) => ({ ...c, [id]: { area: circle, text } }));
          set(id, text);
          setHint(id, t('post.drawn', { circle: text }));
        } else {
          setHint(id, '');
          setChosen((c) => (c[id] && latest.current[id] !== c[id].text ? { ...c, [id]: null } : c));
        }
        refs[id].current?.scrollIntoView({ block: 'center' });
      },
    });
  }
  return { hints, setHints, drawing, draw };
}

/** The form: a new truck or load, or the draft being edited. `handle` is what createPosting's object calls (edit, refresh). */
function PostingForm({ api, state, notice, onPosted, handle }) {
  const [values, setValues] = useState(() => emptyValues());
  /** The areas chosen otherwise than by a UN/LOCODE (a circle drawn, a draft's area): kept while the field shows their words. */
  const [chosen, setChosen] = useState({ from: null, to: null });
  const [editing, setEditing] = useState(null);
  const [problems, setProblems] = useState(NO_PROBLEMS);
  const [, setRound] = useState(0);
  const refs = { from: useRef(null), to: useRef(null) };
  const latest = useRef(values);
  latest.current = values;

  const set = (key, value) => setValues((v) => ({ ...v, [key]: value }));
  const { hints, setHints, drawing, draw } = useCircleDrawing({ mapOf: () => state.map, refs, latest, set, setChosen });
  const truck = values.kind === 'offer';
  const active = (state.partnerList ?? []).filter((p) => p.relationship === 'active');
  const ticked = active.map((p) => p.organizationId).filter((id) => (values.partners ?? [id]).includes(id));
  const invalid = (input) => Object.keys(problems.fields).some((f) => INVALID_INPUT[f] === input);

  // The areas drawn or kept are shown on the map while the form holds them (and taken off once
  // it no longer does); nothing is asked of the map before a first one (its style may still load).
  const shown = useRef(false);
  useEffect(() => {
    if (!state.map || (!shown.current && !chosen.from && !chosen.to)) return;
    shown.current = true;
    showDraftAreas(state.map, [chosen.from?.area, chosen.to?.area]);
  }, [chosen]);

  /** A place typed: the area drawn or kept goes once its words are changed. */
  const placeTyped = (id, text) => {
    set(id, text);
    setChosen((c) => (c[id] && text !== c[id].text ? { ...c, [id]: null } : c));
  };

  /** The form filled with a draft of ours; saved with a PATCH. */
  function edit(l) {
    const filled = valuesOf(l, state.places);
    setEditing(l);
    setValues(filled.values);
    setChosen(filled.chosen);
    setProblems(NO_PROBLEMS);
    setHints({ from: '', to: '' });
    document.getElementById('post-title').textContent = t(`post.editTitle.${l.kind}`, { lane: `${placeText(filled.values.from)} → ${placeText(filled.values.to)}` });
    const details = document.getElementById('post');
    details.open = true;
    details.scrollIntoView({ block: 'start' });
    refs.from.current?.focus();
  }

  /** Back to a new truck or load (what the form holds stays). */
  function stopEditing() {
    setEditing(null);
    document.getElementById('post-title').textContent = t('post.title');
    setProblems(NO_PROBLEMS);
    setChosen({ from: null, to: null });
  }

  handle.edit = edit;
  handle.refresh = () => setRound((r) => r + 1);
  handle.editing = editing;

  async function submit(event) {
    event.preventDefault();
    setProblems(NO_PROBLEMS);
    const action = event.submitter?.value ?? (editing ? 'save' : 'post');
    const made = bodyOf({ ...values, partners: ticked }, chosen);
    const lane = { from: placeText(values.from), to: placeText(values.to) };
    if (editing) return saveDraft(made, action === 'save-publish', lane);
    const publish = action !== 'draft';
    if (made.errors) return setProblems(problemsOf({ title: t('post.notPosted'), errors: made.errors }, values.kind));
    const listingKind = made.path === '/capacity-offers' ? 'offer' : 'request';
    const label = publish ? t(`post.postLabel.${listingKind}`, lane) : t(`post.saveNewLabel.${listingKind}`, lane);
    let created;
    try {
      created = await api.post(made.path, made.body, undefined, label);
      if (publish) await api.post(`${made.path}/${created.id}/publish`, undefined, created.resourceVersion, label);
      notice(publish ? t('post.postedNotice') : t('post.draftNotice'), t(`post.noticeText.${listingKind}`, lane));
      // Posted: the form is empty again for the next truck or load (its kind kept).
      setValues(emptyValues(values.kind));
      setChosen({ from: null, to: null });
      setHints({ from: '', to: '' });
      await onPosted();
    } catch (err) {
      if (err?.sessionEnded) return;
      setProblems(problemsOf(err?.problem ?? { title: String(err?.message ?? err) }, values.kind));
      // Nothing half done: a draft whose publication the broker refused is discarded (its own key),
      // and the form keeps what was typed, to be corrected and posted again.
      if (created && publish) {
        await api.post(`${made.path}/${created.id}/withdraw`, { reason: t('post.discardedAfterRefusal') }, created.resourceVersion, t('post.discardLabel')).catch(() => {
          setProblems((p) => ({ ...p, summary: `${p.summary} ${t('post.leftDraft')}` }));
        });
      }
      await onPosted();
    }
  }

  async function saveDraft(made, publish, lane) {
    const l = editing;
    if (made.errors) return setProblems(problemsOf({ title: t('post.notSaved'), errors: made.errors }, l.kind, t('post.notSaved')));
    const path = `/${KIND_OF_PATH[l.kind]}/${l.id}`;
    const label = t(`post.saveLabel.${l.kind}`, lane);
    try {
      // A PATCH is a command like the others: If-Match its version, one Idempotency-Key per click.
      const saved = await api.resend({ method: 'PATCH', path, body: patchOf(l, made), ifMatch: l.resourceVersion, label });
      setEditing({ ...l, ...saved });
      if (publish) await api.post(`${path}/publish`, undefined, saved?.resourceVersion ?? l.resourceVersion + 1, t(`post.publishLabel.${l.kind}`, { owner: nameOf(l.ownerOrganizationId, state.names) }));
      notice(publish ? t('post.postedNotice') : t('post.savedNotice'), t(`post.noticeText.${l.kind}`, lane));
      stopEditing();
      await onPosted();
    } catch (err) {
      if (err?.sessionEnded) return;
      setProblems(problemsOf(err?.problem ?? { title: String(err?.message ?? err) }, l.kind, t('post.notSaved')));
      await onPosted();
    }
  }

  const f = problems.fields;
  const date = (id, key, more = {}) => html`<${DateInput} id=${id} value=${values[key]} onValue=${(x) => set(key, x)} invalid=${invalid(id)} ...${more} />`;
  const tick = (id) => set('partners', ticked.includes(id) ? ticked.filter((x) => x !== id) : [...ticked, id]);
  return html`<form id="post-form" class="post" novalidate onSubmit=${submit}>
    <fieldset class="kind">
      <legend>${t('post.what')}</legend>
      <label><input type="radio" name="post-kind" value="offer" checked=${truck} disabled=${!!editing} onChange=${() => set('kind', 'offer')} />${` ${t('post.truck')}`}</label>
      <label><input type="radio" name="post-kind" value="request" checked=${!truck} disabled=${!!editing} onChange=${() => set('kind', 'request')} />${` ${t('post.load')}`}</label>
    </fieldset>
    ${['from', 'to'].map((id) => html`<${PlaceField} key=${id} id=${id} api=${api} value=${values[id]} onText=${(text) => placeTyped(id, text)} inputRef=${refs[id]} hint=${hints[id]} drawing=${drawing[id]} onDraw=${() => draw(id)} error=${f[id]} />`)}
    <div class="field" id="post-first-field">
      <label for="post-first-start"><span>${truck ? t('post.availableFrom') : t('post.pickupFrom')}</span></label>
      ${date('first-start', 'firstStart', { required: true, onCommit: (x) => set('expires', x) })}
      <label for="post-first-end">${t('post.until')}</label>
      ${date('first-end', 'firstEnd', { required: true })}
      <${ErrorSlot} id="first" text=${f.first} />
    </div>
    <div class="field" id="post-second-field" hidden=${truck}>
      <label for="post-second-start">${t('post.deliveryFrom')}</label>
      ${date('second-start', 'secondStart')}
      <label for="post-second-end">${t('post.until')}</label>
      ${date('second-end', 'secondEnd')}
      <${ErrorSlot} id="second" text=${f.second} />
    </div>
    <fieldset class="capacity" id="post-capacity-field">
      <legend>${t('post.capacity')}</legend>
      <span class="pair"><label for="post-weight">${t('post.weight')}</label><${NumberInput} id="weight" min="0" step="0.1" inputmode="decimal" invalid=${invalid('weight')} value=${values.weight} onValue=${(x) => set('weight', x)} /></span>
      <span class="pair"><label for="post-pallets">${t('post.pallets')}</label><${NumberInput} id="pallets" min="0" step="1" inputmode="numeric" value=${values.pallets} onValue=${(x) => set('pallets', x)} /></span>
      <span class="pair"><label for="post-ldm">${t('post.ldm')}</label><${NumberInput} id="ldm" min="0" step="0.1" inputmode="decimal" value=${values.ldm} onValue=${(x) => set('ldm', x)} /></span>
      <${ErrorSlot} id="capacity" text=${f.capacity} />
    </fieldset>
    <div class="field" id="post-body-field">
      <label for="post-body"><span>${truck ? t('post.body') : t('post.bodyWanted')}</span></label>
      <select id="post-body" aria-describedby="post-body-error" aria-invalid=${invalid('body') ? 'true' : undefined} value=${values.body} onChange=${(e) => set('body', e.currentTarget.value)}>
        ${BODY_TYPES.map((b) => html`<option key=${b} value=${b}>${statusOf(b)}</option>`)}
      </select>
      <${ErrorSlot} id="body" text=${f.body} />
    </div>
    <${Goods} v=${values} set=${set} truck=${truck} error=${f.goods} />
    <div class="field" id="post-price-field">
      <label for="post-price">${t('post.price')}</label>
      <${NumberInput} id="price" min="0" step="1" inputmode="decimal" invalid=${invalid('price')} value=${values.price} onValue=${(x) => set('price', x)} />
      <span class="hint" id="post-price-hint">${t('post.priceHint')}</span>
      <${ErrorSlot} id="price" text=${f.price} />
    </div>
    <div class="field" id="post-expires-field">
      <label for="post-expires">${t('post.expires')}</label>
      ${date('expires', 'expires', { required: true })}
      <${ErrorSlot} id="expires" text=${f.expires} />
    </div>
    <${Visibility} mode=${values.visibility} onMode=${(x) => set('visibility', x)} partners=${active} ticked=${ticked} onTick=${tick} error=${f.visibility} />
    <div class="actions">
      ${editing
        ? html`<button key="save" type="submit" class="accept" value="save">${t('post.saveChanges')}</button>
            <button key="save-publish" type="submit" value="save-publish">${t('post.savePublish')}</button>
            <button key="stop" type="button" onClick=${stopEditing}>${t('post.stopEditing')}</button>`
        : html`<button key="post" type="submit" class="accept" value="post">${t('post.post')}</button>
            <button key="draft" type="submit" value="draft">${t('post.saveDraft')}</button>`}
    </div>
    <p id="post-problem" class="field-error" role="alert">${problems.summary}</p>
  </form>`;
}

/**
 * The posting form, drawn into `slot` (console.js' #post-slot): { form, refresh (the partners read
 * again), edit (a draft of ours), editing }.
 */
export function createPosting({ api, state, onPosted, notice, slot }) {
  const handle = {};
  render(html`<${PostingForm} api=${api} state=${state} notice=${notice} onPosted=${onPosted} handle=${handle} />`, slot);
  const posting = {
    form: slot.querySelector('#post-form'),
    refresh: () => handle.refresh?.(),
    edit: (l) => handle.edit(l),
    get editing() {
      return handle.editing;
    },
  };
  current = posting;
  return posting;
}

/**
 * The actions on one of the organization's own listings: edit or publish a draft, withdraw an open
 * one. A component of its own (the grid's row draws it, keyed by the listing and its status): the
 * reason typed, the problem its last command met and the focus stay through the grid's redraws.
 */
function ListingActions({ l, api, onDone, names }) {
  const [reason, setReason] = useState('');
  const [problem, setProblem] = useState('');
  const path = `/${KIND_OF_PATH[l.kind]}/${l.id}`;
  const owner = { owner: nameOf(l.ownerOrganizationId, names) };
  const act = async (command, body, label) => {
    setProblem('');
    try {
      await api.post(`${path}/${command}`, body, l.resourceVersion, label);
      await onDone();
    } catch (err) {
      if (err?.sessionEnded) return;
      const p = err?.problem ?? {};
      setProblem(`${p.title ?? t('problem.refused')}${p.detail ? `: ${p.detail}` : ''}`);
    }
  };
  // A draft partners never saw can be discarded (withdrawn from draft).
  if (l.status === 'draft') {
    return html`<span class="listing-actions">
      ${current ? html`<button type="button" aria-label=${t(`post.editLabel.${l.kind}`, owner)} onClick=${() => current.edit(l)}>${t('post.edit')}</button>` : ''}
      <button type="button" onClick=${() => act('publish', undefined, t(`post.publishLabel.${l.kind}`, owner))}>${t('post.publish')}</button>
      <button type="button" class="reject" onClick=${() => act('withdraw', { reason: t('post.discardedByPlanner') }, t('post.discardLabel'))}>${t('post.discard')}</button>
      <span class="field-error" role="alert">${problem}</span>
    </span>`;
  }
  const submit = (e) => {
    e.preventDefault();
    act('withdraw', { reason: reason.trim() || t('post.withdrawnByPlanner') }, t(`post.withdrawLabel.${l.kind}`, owner));
  };
  return html`<form class="listing-actions" onSubmit=${submit}>
    <label for=${`withdraw-${l.id}`} class="visually-hidden">${t('post.reasonLabel')}</label>
    <input id=${`withdraw-${l.id}`} placeholder=${t('common.reason')} required value=${reason} onInput=${(e) => setReason(e.currentTarget.value)} />
    <button type="submit">${t('post.withdraw')}</button>
    <span class="field-error" role="alert">${problem}</span>
  </form>`;
}

/** A listing's actions for the grid's row (a component drawn there), or null when it has none. */
export function listingActions(l, { api, onDone, names }) {
  if (l.status !== 'draft' && !['published', 'partiallyMatched', 'proposed'].includes(l.status)) return null;
  return html`<${ListingActions} key=${`${l.id}:${l.status}`} l=${l} api=${api} onDone=${onDone} names=${names} />`;
}
