#!/usr/bin/env bash
# The README's "A recurring corridor" as one script: bash scripts/walkthrough-series.sh against a
# running `npm start` (B names another broker). Alpine's truck runs Hamburg to Rotterdam every
# Tuesday and Thursday; one series lists each date a week ahead as an offer of its own. A date is
# skipped, the series is paused and resumed, then ended: its offers not yet begun are withdrawn.
# Every run makes a series of its own and ends it, so it can run again. test/walkthrough.test.ts
# runs it twice.
set -euo pipefail
cd "$(dirname "$0")/.."
# series:begin
. scripts/pcx-helpers.sh   # B, pcx, j and at, from the clone's root (see "Trying it with pcx")
# tuesday WEEKS: the date of the first Tuesday after today, WEEKS weeks later
tuesday() { python3 -c 'import datetime as d, sys; t = d.date.today() + d.timedelta(days=1); t += d.timedelta(days=(1 - t.weekday()) % 7 + 7 * int(sys.argv[1])); print(t.isoformat())' "$1"; }
# first_run: the first Tuesday or Thursday after today (at most five days ahead, so within the horizon)
first_run() { python3 -c 'import datetime as d; t = d.date.today() + d.timedelta(days=1); t += d.timedelta(days=min((w - t.weekday()) % 7 for w in (1, 3))); print(t.isoformat())'; }

PCX_CLIENT_SECRET=alpine-demo-secret pcx --base-url "$B" -p alpine login --client-id alpine-tms

# Every Tuesday and Thursday, 08:00 to 18:00 Berlin time (summer or winter), each date listed 7
# days ahead until two hours before it starts; the terms are an offer's, without its times
SERIES=$(pcx -p alpine --json series create --file - <<JSON | j id
{"listingKind": "capacityOffer",
 "terms": {"originArea": {"kind": "unlocode", "code": "DEHAM"}, "destinationArea": {"kind": "unlocode", "code": "NLRTM"},
           "vehicleProfile": {"bodyType": "curtainsider"}, "availableCapacity": {"weight": {"value": 24, "unitCode": "TNE"}, "palletSpaces": 33},
           "visibility": {"mode": "open"}},
 "recurrence": {"rrule": "FREQ=WEEKLY;BYDAY=TU,TH", "timeZone": "Europe/Berlin", "startDate": "$(first_run)"},
 "template": {"windows": {"availabilityWindow": {"time": "08:00", "duration": "PT10H"}}, "expiresAt": {"before": "PT2H"}},
 "horizon": "P7D"}
JSON
)
echo "series $SERIES: $(pcx -p alpine --json series get "$SERIES" | j status)"

# The broker lists the dates due within the horizon at once, each an ordinary offer of Alpine's
# that names its series and date (seriesId, occurrenceKey; `--series` lists them); wait until they are published
for i in $(seq 40); do
  LISTED=$(pcx -p alpine --json offers list --series "$SERIES" --status published | python3 -c 'import json, sys; print(" ".join(sorted(o["occurrenceKey"] for o in json.load(sys.stdin))))')
  [ -n "$LISTED" ] && break; sleep 0.5
done
echo "listed: $LISTED"

# A public holiday: the date is never listed (a date already listed is withdrawn like any offer)
pcx -p alpine series skips "$SERIES" --data "{\"key\": \"$(tuesday 2)\", \"reason\": \"public holiday\"}" > /dev/null
echo "skipped $(tuesday 2)"

# Paused, nothing more is listed; resumed, what can still be met is listed at once
pcx -p alpine series pause "$SERIES" > /dev/null
echo "series $SERIES: $(pcx -p alpine --json series resume "$SERIES" | j status) again"

# Ended: its offers that have not begun are withdrawn, with the reason (SERIES_ENDED)
pcx -p alpine series end "$SERIES" --data '{"reason": "walkthrough done"}' > /dev/null
for i in $(seq 40); do
  LEFT=$(pcx -p alpine --json offers list --series "$SERIES" --status published | python3 -c 'import json, sys; print(len(json.load(sys.stdin)))')
  [ "$LEFT" = 0 ] && break; sleep 0.5
done
echo "series $SERIES ended: $LEFT of its offers still listed"
# series:end
