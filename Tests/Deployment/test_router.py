"""Scale-out for real: three lifecycled replicas behind nginx with the shipped router configuration.

The router is config/nginx/lifecycled.conf as shipped, filled in as a deployer fills it in
(nginx_router.py). nginx is Debian's (scripts/install-dependencies); the replicas are the binary
under test (LIFECYCLED_BINARY, else the debug build), each with a manual device clock.
"""

import http.client
import json
import os
import shutil
import signal
import tempfile

import pytest

from local_servers import free_port, serve, wait_for
from nginx_router import Router

DEVICES = [f"device-{n:03}" for n in range(300)]


def request(port, method, path, body=None, timeout=10):
    """One request on its own connection: (status, headers, parsed JSON body or text)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        connection.request(method, path, body=json.dumps(body) if body is not None else None,
                           headers=headers)
        response = connection.getresponse()
        text = response.read().decode()
        kind = response.getheader("Content-Type", "")
        return response.status, response, json.loads(text) if "json" in kind else text
    finally:
        connection.close()


def new_device(device):
    """What creates a device through a router (PUT /v1/devices/{id}): its declaration."""
    return {"id": device, "clock": "manual"}


class Fleet:
    """Three replicas and the router, each a real process on loopback."""

    def __init__(self):
        self.directory = tempfile.mkdtemp(prefix="lifecycled-fleet-")
        os.chmod(self.directory, 0o755)  # nginx's workers (nobody, under root) write temp files
        self.replica_ports = [free_port() for _ in range(3)]
        self.replicas = [serve(port) for port in self.replica_ports]
        self.port = free_port()
        self.router = Router(self.directory, self.port, self.replica_ports)
        wait_for(self.port, "/router/livez")

    def owners(self):
        """For each device, the replicas that have it (asked directly, page by page)."""
        owners = {}
        for index, port in enumerate(self.replica_ports):
            after = ""
            while True:
                status, _, page = request(port, "GET", f"/v1/devices?limit=100{after}")
                assert status == 200
                for device in page["devices"]:
                    owners.setdefault(device["id"], []).append(index)
                if not page["hasMore"]:
                    break
                after = "&after=" + page["devices"][-1]["id"]
        owners.pop("default")  # every replica has its own
        return owners

    def stop(self):
        self.router.stop()
        for process in self.replicas:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=10)
        shutil.rmtree(self.directory, ignore_errors=True)


@pytest.fixture
def fleet():
    fleet = Fleet()
    try:
        yield fleet
    finally:
        fleet.stop()


def create_and_drive(fleet, devices):
    """Through the router: creates each device and its app, launches the app and sends it home."""
    for device in devices:
        assert request(fleet.port, "PUT", f"/v1/devices/{device}", new_device(device))[0] == 201
        apps = f"/v1/devices/{device}/apps"
        assert request(fleet.port, "POST", apps, {"name": "mail"})[0] == 201
        for event in ("launch", "home"):
            status, _, outcome = request(fleet.port, "POST", f"{apps}/mail/events", {"type": event})
            assert status == 200, outcome
        assert outcome["state"] == "background"


def assert_each_device_is_whole(fleet, devices):
    """Through the router, every device answers with everything that was done to it."""
    for device in devices:
        status, _, view = request(fleet.port, "GET", f"/v1/devices/{device}")
        assert status == 200, (device, view)
        assert (view["apps"], view["counters"]["events"]) == (1, 2), device


def test_each_device_lives_on_exactly_one_replica_and_stays_there(fleet):
    create_and_drive(fleet, DEVICES)

    owners = fleet.owners()
    assert sorted(owners) == DEVICES
    assert all(len(replicas) == 1 for replicas in owners.values())
    spread = [sum(1 for replicas in owners.values() if replicas == [index]) for index in range(3)]
    assert min(spread) >= 60, spread  # about 100 each: consistent hashing spreads them evenly

    assert_each_device_is_whole(fleet, DEVICES)
    fleet.router.reload()
    assert_each_device_is_whole(fleet, DEVICES)
    # A device's replica follows from the replicas' names, not from the order they are listed in.
    fleet.router.list_replicas(reversed(fleet.replica_ports))
    fleet.router.reload()
    assert_each_device_is_whole(fleet, DEVICES)
    assert fleet.owners() == owners


def test_a_stopped_replica_affects_only_its_own_devices(fleet):
    create_and_drive(fleet, DEVICES)
    owners = fleet.owners()
    stopped = fleet.replicas[1]
    stopped.send_signal(signal.SIGTERM)
    assert stopped.wait(timeout=10) == 0

    for device in DEVICES:
        status, _, answer = request(fleet.port, "POST", f"/v1/devices/{device}/apps/mail/events",
                                    {"type": "launch"})
        if owners[device] == [1]:
            assert (status, answer) == (502, {
                "type": "urn:lifecycled:problem:replica-unavailable",
                "title": "The replica of the device is unavailable",
                "status": 502,
                "detail": f"the replica of device {device} did not answer",
            })
        else:
            assert (status, answer["state"]) == (200, "active"), device

    # Back on its port, the replica serves its shard again, empty: its state lived in memory.
    fleet.replicas[1] = serve(fleet.replica_ports[1])
    for device in DEVICES:
        expected = 404 if owners[device] == [1] else 200
        assert request(fleet.port, "GET", f"/v1/devices/{device}")[0] == expected, device
    returning = next(device for device in DEVICES if owners[device] == [1])
    assert request(fleet.port, "PUT", f"/v1/devices/{returning}", new_device(returning))[0] == 201
    assert fleet.owners()[returning] == [1]


@pytest.mark.parametrize("method, path", [
    ("GET", "/v1/devices"),
    ("POST", "/v1/devices"),
    ("GET", "/v1/devices/"),
    ("GET", "/health"),
    ("GET", "/metrics"),
    ("POST", "/__admin/reset"),
])
def test_what_describes_one_replica_is_not_answered_through_the_router(fleet, method, path):
    status, response, problem = request(fleet.port, method, path, {"id": "x"} if method == "POST" else None)
    assert (status, response.getheader("Content-Type")) == (501, "application/problem+json")
    assert problem["type"] == "urn:lifecycled:problem:not-routable"
    assert "PUT /v1/devices/{id}" in problem["detail"]


def test_the_default_device_and_the_contract_are_served_by_one_replica(fleet):
    assert request(fleet.port, "POST", "/v1/apps", {"name": "mail"})[0] == 201
    assert request(fleet.port, "GET", "/v1/apps/mail")[0] == 200
    has_mail = [request(port, "GET", "/v1/apps/mail")[0] for port in fleet.replica_ports]
    assert sorted(has_mail) == [200, 404, 404]
    status, response, _ = request(fleet.port, "GET", "/openapi.yaml")
    assert (status, response.getheader("Content-Type")) == (200, "application/yaml")


def test_a_journal_stream_passes_through_the_router_as_it_happens(fleet):
    device = "streamed"
    create_and_drive(fleet, [device])
    journal = request(fleet.port, "GET", f"/v1/devices/{device}/journal?limit=1000")[2]
    last = journal["entries"][-1]["transition"]["seq"]
    connection = http.client.HTTPConnection("127.0.0.1", fleet.port, timeout=10)
    try:
        connection.request("GET", f"/v1/devices/{device}/journal/stream?since={last}&timeout=60")
        stream = connection.getresponse()
        assert (stream.status, stream.getheader("Content-Type")) == (200, "text/event-stream")
        # The event below is sent after the stream opened; were the router buffering, the read
        # would wait for the stream's end (60 s) and time out first (10 s).
        status, _, outcome = request(fleet.port, "POST", f"/v1/devices/{device}/apps/mail/events",
                                     {"type": "launch"})
        assert status == 200
        lines = [stream.readline().decode() for _ in range(3)]
        incarnation = stream.getheader("ETag").strip('"').split("-")[0]
        assert lines[0] == f"id: {incarnation}-{last + 1}\n"  # the event's own entry first
        assert json.loads(lines[1].removeprefix("data: "))["event"] == {"type": "launch"}
        assert lines[2] == "\n"
    finally:
        connection.close()
