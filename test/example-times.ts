// The example messages of examples/ tell a story from 1 to 3 June 2031. The exchange records a
// reported time only between the creation of the movement's execution reference and its own now
// (5 minutes of clock skew either side: docs/decisions.md, "Now against the movement"), so a test
// that sends them to a movement it has just made tells the story again within the minutes it has:
// every time of the message is moved, in its order, linearly from the message's own first..last
// onto from..to (the only change; the statuses, places and references stay as written).
import { DateTime } from 'luxon';

/** The linear map of the message's times [first, last] onto [from, to] (all onto `to` when the message has one time). */
function retiming(instants: number[], from: Date, to: Date): (t: number) => Date {
  if (!(to.getTime() > from.getTime())) throw new Error(`nothing to retime onto: ${from.toISOString()}..${to.toISOString()}`);
  const first = Math.min(...instants);
  const last = Math.max(...instants);
  const span = last - first;
  return (t) => new Date(span === 0 ? to.getTime() : from.getTime() + ((t - first) / span) * (to.getTime() - from.getTime()));
}

/** An EDIFACT message with every DTM of format 203 (CCYYMMDDHHMM, local in `zone`) retimed onto from..to (minutes, rounded down). */
export function retimedEdifact(text: string, zone: string, from: Date, to: Date): string {
  const pattern = /(DTM\+\d+:)(\d{12})(:203)/g;
  const read = (v: string) => DateTime.fromFormat(v, 'yyyyMMddHHmm', { zone }).toMillis();
  const map = retiming([...text.matchAll(pattern)].map((m) => read(m[2])), from, to);
  return text.replace(pattern, (_m, head: string, v: string, tail: string) => head + DateTime.fromJSDate(map(read(v))).setZone(zone).toFormat('yyyyMMddHHmm') + tail);
}

/** An EPCIS 2.0 JSON document with its events' eventTime retimed onto from..to (told in UTC, offset +00:00) and creationDate at `to`. */
export function retimedEpcis(text: string, from: Date, to: Date): string {
  const doc = JSON.parse(text);
  const events: Array<Record<string, unknown>> = doc.epcisBody.eventList;
  const map = retiming(events.map((e) => Date.parse(String(e.eventTime))), from, to);
  for (const event of events) {
    event.eventTime = map(Date.parse(String(event.eventTime))).toISOString();
    event.eventTimeZoneOffset = '+00:00';
  }
  doc.creationDate = to.toISOString();
  return JSON.stringify(doc, null, 2);
}
