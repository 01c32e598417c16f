# The helpers the pcx walkthroughs share (scripts/walkthrough-pcx.sh, walkthrough-series.sh,
# onboard-connector.sh, onboard-organization.sh and their blocks in the README): each loads this
# file with `. scripts/pcx-helpers.sh` from the clone's root (the scripts cd there first, so they
# run from any directory). One definition, so a fix to j or at reaches every walkthrough.
B=${B:-http://localhost:8080}
pcx() { ./bin/pcx "$@"; }          # from a clone; or the installed `pcx` (see "The SDK and pcx")
# j PATH: one value of the JSON on stdin (PATH like id or items.0.id)
j() { python3 -c 'import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1].split("."): v = v[int(k)] if isinstance(v, list) else v[k]
print(v if isinstance(v, str) else json.dumps(v))' "$1"; }
# at HOURS: the UTC time HOURS hours from now, as the API writes times
at() { python3 -c 'import datetime as d, sys; print((d.datetime.now(d.timezone.utc) + d.timedelta(hours=float(sys.argv[1]))).strftime("%Y-%m-%dT%H:%M:%SZ"))' "$1"; }
