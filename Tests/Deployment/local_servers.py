"""lifecycled on loopback, for the tests that start their own servers: a free port, the binary
under test (LIFECYCLED_BINARY, else the debug build) started with a manual device clock, and a
wait until a server answers. Tests/Deployment/test_router.py and Tests/LivePage both use it; it
needs nothing but the standard library.
"""

import http.client
import os
import socket
import subprocess
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BINARY = os.environ.get("LIFECYCLED_BINARY", os.path.join(ROOT, ".build", "debug", "lifecycled"))

# lifecycled refuses LIFECYCLED_ variables it does not know, such as LIFECYCLED_BINARY.
SERVER_ENVIRONMENT = {k: v for k, v in os.environ.items() if not k.startswith("LIFECYCLED_")}


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(port, path="/readyz"):
    """Returns once `GET path` on the port answers 200; raises if it has not within 10 s."""
    deadline = time.monotonic() + 10
    while True:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
        try:
            connection.request("GET", path)
            if connection.getresponse().status == 200:
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
        finally:
            connection.close()
        if time.monotonic() > deadline:
            raise TimeoutError(f"GET {path} on port {port} did not answer 200 within 10 s")
        time.sleep(0.02)


def serve(port, **settings):
    """lifecycled on `port` with a manual device clock, logging warnings only, with these
    LIFECYCLED_ settings; returned once it is ready."""
    server = subprocess.Popen(
        [BINARY, "serve", "--port", str(port), "--device-clock", "manual"],
        env={**SERVER_ENVIRONMENT, "LIFECYCLED_LOG_LEVEL": "warning", **settings})
    wait_for(port)
    return server
