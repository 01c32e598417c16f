# schemathesis hooks for `npm run fuzz` (scripts/fuzz.ts points SCHEMATHESIS_HOOKS at this file).
#
# The fuzz organizations' connectors hold every scope, connector management included, and find
# their own connector through GET /connectors. A generated disable, retire, credential revocation
# or roll, or scope change of the very connector a run authenticates as locked that run out: the
# token endpoint refused it from then on, and every later request was an "Authentication Error"
# (83 per organization in the run of 2026-11-29, the fuzzing and stateful phases lost). Such
# requests are dropped here, for the fuzzers' own connectors only (PCX_FUZZ_PROTECTED_CONNECTORS,
# their ids); reads of them, and every request on any other connector id, are fuzzed as before.
import os

import schemathesis

PROTECTED = {value for value in os.environ.get("PCX_FUZZ_PROTECTED_CONNECTORS", "").split(",") if value}
READS = {"GET", "HEAD", "OPTIONS"}


@schemathesis.hook
def filter_case(context, case):
    if case.method.upper() in READS or not case.operation.path.startswith("/connectors/{id}"):
        return True
    return str((case.path_parameters or {}).get("id")) not in PROTECTED
