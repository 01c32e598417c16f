// The UI library of the console's views (and the date picker of its fields), as one module (served as /console/app/ui.js, bundled by
// api/console-bundles.ts): Preact for components with their own state that are redrawn by
// difference (a redraw keeps the element that has the focus, and what a planner was typing), and
// htm for writing them as tagged templates, which a browser runs as it is (no JSX, no build step).
// A view: `function Queue({ items }) { const [open, setOpen] = useState(false); return html`<ul>…</ul>`; }`,
// drawn with `render(html`<${Queue} items=${items} />`, container)` (console/work-view.js).
import { h } from 'preact';
import htm from 'htm';

export { render, Fragment } from 'preact';
export { useState, useMemo, useRef, useEffect, useLayoutEffect } from 'preact/hooks';
export const html = htm.bind(h);

// The calendar and time picker of the date-and-time fields (console/datetime.js).
export { Calendar, time } from 'vanilla-calendar-pro';
