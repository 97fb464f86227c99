"""schemathesis hooks for scripts/schemathesis.

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
_serial = itertools.count()


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    key = (case.headers or {}).get("Idempotency-Key")
    if key is not None and _WELL_FORMED.match(key):
        case.headers["Idempotency-Key"] = f"schemathesis-{next(_serial)}"
