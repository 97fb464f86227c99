"""schemathesis hooks for scripts/schemathesis.

A long poll (`timeout` with `waitFor`, `wait` on the journal) may rightly hold its answer for
up to 300 s; every valid wait is cut to 50 ms here so that the run does not sit through them
(invalid ones are left for the negative checks). A journal stream lasts until it is ended:
each is given a 50 ms `timeout` unless it asks for an invalid one. The waiting and streaming
themselves are tested in Tests/LifecycleAPITests/WaitTests.swift and StreamTests.swift, and
over sockets in the live tests.

Half the requests about an app name `mail` of the device `default`, which the server's fixtures
create: random names would nearly all be answered 404 and never reach the app's events.

Half the requests for a jetsam event's report name one that exists: a purge on a device of its
own (made here through the API, at `LIFECYCLED_URL`) and the number of its event, so that the
report's schema is checked against real answers and not only 404s. Each such device has a name
of its own (`jetsam-report-1`, ...), removed once the report is answered: a name used again, or
a device left in place, could be one the stateful phase deleted, which it would then see come
back.

A client gives each logical request a fresh Idempotency-Key. schemathesis draws keys from a
small space and would send one key with different requests, which lifecycled rightly refuses
(422 idempotency-key-reused, tested in Tests/LifecycleAPITests/IdempotencyTests.swift): every
well-formed key it generates is made unique here; malformed ones are left for the negative
checks.
"""
import itertools
import json
import os
import re
import urllib.error
import urllib.request

import schemathesis

_WELL_FORMED = re.compile(r'^("[\x21\x23-\x7E]{1,255}"|[\x21\x23-\x7E]{1,255})$')
_NAME = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$')
_serial = itertools.count()
_apps = itertools.count()
_reports = itertools.count()
_jetsam_devices = itertools.count(1)


def _request(method, path, body=None):
    """The JSON answer to a request; None if it was refused or had no body (204)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        os.environ["LIFECYCLED_URL"] + path, data=data, method=method,
        headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
            return json.loads(body) if body else None
    except urllib.error.HTTPError:
        return None


def _a_jetsam_event():
    """A device and the number of a jetsam event it keeps: a purge on a new device."""
    device = f"jetsam-report-{next(_jetsam_devices)}"
    _request("POST", "/v1/devices", {"id": device, "clock": "manual"})
    _request("POST", f"/v1/devices/{device}/apps", {"name": "victim"})
    _request("POST", f"/v1/devices/{device}/apps/victim/events",
             [{"type": "launch"}, {"type": "home"}, {"type": "purge", "reason": "highwater"}])
    kills = (_request("GET", f"/v1/devices/{device}/jetsam") or {}).get("kills") or []
    return (device, kills[-1]["jetsamEvent"]) if kills else None


def _is_valid_wait(value):
    try:
        return 0 <= float(value) <= 300
    except (TypeError, ValueError):
        return False


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    path = case.path_parameters or {}
    if ("{app}" in case.operation.path and _NAME.match(str(path.get("app", "")))
            and _NAME.match(str(path.get("device", "default"))) and next(_apps) % 2 == 0):
        path["app"] = "mail"
        if "device" in path:
            path["device"] = "default"
    # Half the reports asked for are of a fresh jetsam event; never of a device the case names
    # itself, which a stateful run may just have deleted (to find it gone).
    if (case.operation.path.endswith("/jetsam/{jetsamEvent}/report")
            and not str(path.get("device", "")).startswith("jetsam-report")
            and next(_reports) % 2 == 0):
        found = _a_jetsam_event()
        number = path.get("jetsamEvent")
        valid = isinstance(number, int) and 1 <= number <= 999_999_999_999_999
        if found and valid and _NAME.match(str(path.get("device", ""))):
            path["device"], path["jetsamEvent"] = found
    for name, value in list((case.query or {}).items()):
        if isinstance(value, dict):  # sent as text: the transport drops an object, and the
            case.query[name] = json.dumps(value)  # unknown parameter would never reach us
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


@schemathesis.hook
def after_call(ctx, case, response):
    device = str((case.path_parameters or {}).get("device", ""))
    if case.operation.path.endswith("/jetsam/{jetsamEvent}/report") and device.startswith(
            "jetsam-report-"):
        _request("DELETE", f"/v1/devices/{device}")
