// A lane as the console shows it, as components (./ui.js): each end by name after its country's
// flag, "from → to" (the component twins of views.js' placeView and laneView: the same markup,
// styled by img.flag). Shared by the views drawn as components (console/series.js, console/grid.js, console/proposal-view.js).
import { html } from './ui.js';
import { countryName, countryOf, endsOf, placeOf } from './format.js';

/** An area by name after its country's flag (an image: flag emoji are not drawn everywhere). */
export function Place({ area, places }) {
  const country = countryOf(area);
  return html`<span class="place">${country ? html`<img class="flag" src=${`vendor/flags/${country.toLowerCase()}.svg`} alt=${countryName(country)} title=${countryName(country)} width="16" height="12" />` : ''}${placeOf(area, places)}</span>`;
}

/** A lane: from → to, each with its flag. */
export function Lane({ listing, places }) {
  const [from, to] = endsOf(listing);
  return html`<span class="lane-text"><${Place} area=${from} places=${places} /> → <${Place} area=${to} places=${places} /></span>`;
}
