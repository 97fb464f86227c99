"""Generates the Python client from the contract a running lifecycled serves, as a user would.

Before the tests are collected: starts lifecycled (LIFECYCLED_BINARY, else the debug build) on
a free loopback port with a manual device clock, or uses the one at LIFECYCLED_URL (as the
harness service of config/compose.yaml does: it must have a manual device clock), generates the client from its
`/openapi.yaml` with openapi-python-client (pinned in scripts/install-dependencies) and
`--fail-on-warning`, so that a contract the generator cannot type fails here, and puts the
generated package on the import path. The generated code lives in a temporary directory and
is never committed. Yours: `openapi-python-client generate --url http://HOST:8080/openapi.yaml
--config generator.yaml`, with `post_hooks: []` in generator.yaml unless ruff is installed.
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
BINARY = os.environ.get("LIFECYCLED_BINARY", os.path.join(ROOT, ".build", "debug", "lifecycled"))

_server = None
_workspace = None


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _server_environment():
    """This environment without LIFECYCLED_ variables: lifecycled refuses ones it does not know."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("LIFECYCLED_")}
    return {**environment, "LIFECYCLED_LOG_LEVEL": "warning"}


def _wait_until_ready(url):
    deadline = time.monotonic() + 10
    while True:
        try:
            with urllib.request.urlopen(url + "/readyz", timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.02)


def pytest_configure(config):
    global _server, _workspace
    config.lifecycled_url = os.environ.get("LIFECYCLED_URL")
    if config.lifecycled_url is None:
        port = _free_port()
        _server = subprocess.Popen(
            [BINARY, "serve", "--port", str(port), "--device-clock", "manual"],
            env=_server_environment(),
        )
        config.lifecycled_url = f"http://127.0.0.1:{port}"
    _wait_until_ready(config.lifecycled_url)
    _workspace = tempfile.mkdtemp(prefix="lifecycled-client-")
    generator = os.path.join(os.path.dirname(sys.executable), "openapi-python-client")
    subprocess.run(
        [generator, "generate", "--url", config.lifecycled_url + "/openapi.yaml",
         "--config", os.path.join(HERE, "generator.yaml"), "--fail-on-warning",
         "--output-path", os.path.join(_workspace, "lifecycled-client")],
        check=True,
    )
    sys.path.insert(0, os.path.join(_workspace, "lifecycled-client"))


def pytest_unconfigure(config):
    if _server is not None:
        _server.terminate()
        _server.wait(timeout=10)
    if _workspace is not None:
        shutil.rmtree(_workspace, ignore_errors=True)


@pytest.fixture
def client(request):
    """A client of the generated package, on a server reset to its start for each test."""
    from lifecycled_client import Client
    from lifecycled_client.api.operations import reset

    with Client(base_url=request.config.lifecycled_url, raise_on_unexpected_status=True) as client:
        reset.sync_detailed(client=client)
        yield client
