// The console's date-and-time field: shown and typed in the planner's locale ("07.12.2026, 08:00"),
// with a calendar and a time picker beside the keyboard (vanilla-calendar-pro, from ./ui.js), while
// the form code reads and writes it as before, "2026-12-07T08:00" in the browser's time (what a
// datetime-local input held: a browser draws that one in its own interface language, mm/dd/yyyy
// AM/PM in an American-English browser, whatever the planner's).
//
// How: an <input type="text"> whose `value` property speaks the form's value (an own property
// over HTMLInputElement's, kept here and nowhere else); the text the planner sees is the native
// value, formatted on the way in and parsed on the way out (console/datetime-text.js). Text that is
// no date and time makes the field invalid with the expected pattern, so the form is not sent.
import { Calendar, time } from './ui.js';
import { settings, t } from './format.js';
import { formatLocal, LOCAL, parseLocal, patternOf } from './datetime-text.js';

const locale = () => settings.locale ?? navigator.language;
/** The pattern in the language's own letters ("TT.MM.JJJJ, hh:mm" in German). */
const pattern = () => patternOf(locale(), { year: t('datetime.letters.year'), month: t('datetime.letters.month'), day: t('datetime.letters.day'), hour: t('datetime.letters.hour'), minute: t('datetime.letters.minute') });

/** A new date-and-time field: `attrs` as for an input (id, required, ...), `value` in the form's "2026-12-07T08:00". */
export function dateTimeInput({ value, ...attrs }) {
  const input = document.createElement('input');
  for (const [name, v] of Object.entries(attrs)) if (v !== undefined && v !== false) input.setAttribute(name, v === true ? '' : v);
  input.autocomplete = 'off';
  input.spellcheck = false;
  return upgradeDateTimeInput(input, value);
}

/** Makes an existing <input> (the page's markup) the field above. */
export function upgradeDateTimeInput(input, initial = '') {
  // Without a browser's DOM (the views' unit tests draw into stand-ins) the field stays a plain input holding the form's value.
  if (typeof HTMLInputElement === 'undefined' || !(input instanceof HTMLInputElement)) {
    input.value = initial;
    return input;
  }
  if (input.dataset.datetime) return input;
  input.dataset.datetime = 'true';
  // The input's own value property: the text shown (read once a field is made, so the module loads where there is no DOM).
  const NATIVE = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
  input.type = 'text';
  input.placeholder = pattern();
  let local = '';
  const show = () => NATIVE.set.call(input, formatLocal(local, locale()));
  Object.defineProperty(input, 'value', {
    configurable: true,
    get: () => local,
    set: (v) => {
      local = LOCAL.test(v ?? '') ? v : '';
      input.setCustomValidity('');
      show();
    },
  });
  // Registered first, so every other listener of the field reads the value just typed.
  input.addEventListener('input', () => {
    const parsed = parseLocal(NATIVE.get.call(input), locale());
    local = parsed ?? '';
    input.setCustomValidity(parsed === undefined ? t('datetime.invalid', { pattern: pattern() }) : '');
  });
  // Typed in another writing (or the form's own): shown in the locale's once the planner moves on.
  input.addEventListener('change', () => {
    if (local) show();
  });
  const calendar = new Calendar(input, {
    inputMode: true,
    // Opened by a click or Alt+Down, not by focus: a planner tabbing through a form types the date
    // and is not led through forty buttons of days.
    openOnFocus: false,
    positionToInput: 'auto',
    locale: locale(),
    extensions: [time],
    selectionTimeMode: new Intl.DateTimeFormat(locale(), { hour: 'numeric' }).resolvedOptions().hourCycle?.startsWith('h1') ? 12 : 24,
    // Opened on the field's value, or on today.
    onShow(self) {
      if (local) self.set({ selectedDates: [local.slice(0, 10)], selectedTime: local.slice(11), selectedMonth: Number(local.slice(5, 7)) - 1, selectedYear: Number(local.slice(0, 4)) }, { dates: true, month: true, year: true, time: true });
    },
    // A day or a time chosen: the field takes it as if typed (its listeners hear it).
    onChangeToInput(self) {
      const day = self.context.selectedDates[0];
      if (!day) return;
      let hours = Number(self.context.selectedHours);
      const minutes = Number(self.context.selectedMinutes);
      // A 12-hour picker keeps AM/PM apart from the hour.
      if (self.context.selectedKeeping === 'PM' && hours < 12) hours += 12;
      if (self.context.selectedKeeping === 'AM' && hours === 12) hours = 0;
      const at = self.context.selectedHours !== undefined && self.context.selectedHours !== '' ? `${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}` : local.slice(11) || '08:00';
      input.value = `${day}T${at}`;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      input.dispatchEvent(new Event('change', { bubbles: true }));
    },
  });
  calendar.init();
  input.addEventListener('keydown', (event) => {
    if (event.altKey && event.key === 'ArrowDown') {
      event.preventDefault();
      calendar.show();
    }
  });
  input.value = initial;
  return input;
}
