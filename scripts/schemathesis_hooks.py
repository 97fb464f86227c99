"""schemathesis hooks for scripts/schemathesis.

A long poll (`timeout` with `waitFor`, `wait` on the journal) may rightly hold its answer for
up to 300 s; every valid wait is cut to 50 ms here so that the run does not sit through them
(invalid ones are left for the negative checks). A journal stream lasts until it is ended:
each is given a 50 ms `timeout` unless it asks for an invalid one. The waiting and streaming
themselves are tested in Tests/LifecycleAPITests/WaitTests.swift and StreamTests.swift, and
over sockets in the live tests.

Half the requests about an app of the default device name `mail`, which the server's fixtures
create: random names would nearly all be answered 404 and never reach the app's events.

A client gives each logical request a fresh Idempotency-Key. schemathesis draws keys from a
small space and would send one key with different requests, which lifecycled rightly refuses
(422 idempotency-key-reused, tested in Tests/LifecycleAPITests/IdempotencyTests.swift): every
well-formed key it generates is made unique here; malformed ones are left for the negative
checks.
"""
import itertools
import re

import schemathesis

_WELL_FORMED = re.compile(r'^("[\x21\x23-\x7E]{1,255}"|[\x21\x23-\x7E]{1,255})$')
_NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$')
_serial = itertools.count()
_apps = itertools.count()


def _is_valid_wait(value):
    try:
        return 0 <= float(value) <= 300
    except (TypeError, ValueError):
        return False


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    path = case.path_parameters or {}
    if (case.operation.path.startswith("/v1/apps/{app}") and _NAME.match(str(path.get("app", "")))
            and next(_apps) % 2 == 0):
        path["app"] = "mail"
    if case.query and "waitFor" in case.query and "timeout" not in case.query:
        case.query["timeout"] = "0.05"  # not the default 30 s
    if case.operation.path.endswith("/journal/stream") and "timeout" not in (case.query or {}):
        case.query = {**(case.query or {}), "timeout": "0.05"}  # not until the server stops
    for name in ("timeout", "wait"):
        if case.query and _is_valid_wait(case.query.get(name)):
            case.query[name] = "0.05"
    key = (case.headers or {}).get("Idempotency-Key")
    if key is not None and _WELL_FORMED.match(key):
        case.headers["Idempotency-Key"] = f"schemathesis-{next(_serial)}"
