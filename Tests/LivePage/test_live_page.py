"""The live page (GET /) in a real browser: headless Chromium, Debian's `chromium`, driven by
Playwright (both installed by scripts/install-dependencies test).

The built binary (LIFECYCLED_BINARY, else the debug build) serves on a free loopback port with
a bearer token and a manual device clock. The page is loaded as a user would, the token typed
into it, an event posted through its form, another posted by a second client (which only the
journal stream can tell the page of), the clock moved from the page; the page must show each.
A JavaScript error, a request refused once the token was given, or a failed request fails the
test. The screenshot is left at .build/test-artifacts/live-page.png. An idle device must cost
one small read per poll, a page of another origin must be refused, the page must work
through the shipped scale-out router (Debian's nginx, as Tests/Deployment runs it), and a page
whose DNS name is rebound to the server must change nothing (nor read anything, unless
allowedHosts is `*`).
"""

import http.server
import json
import os
import shutil
import sys
import tempfile
import threading
import urllib.request

import pytest
from playwright.sync_api import expect, sync_playwright

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Deployment"))
# The shipped router and the servers on loopback, as the scale-out test runs them.
from local_servers import free_port, serve, wait_for  # noqa: E402
from nginx_router import Router  # noqa: E402

SCREENSHOT = os.path.join(ROOT, ".build", "test-artifacts", "live-page.png")
TOKEN = "page-test-token"

expect.set_options(timeout=10_000)


@pytest.fixture(scope="module")
def port():
    """lifecycled on a free port, with a token and a manual clock; its port."""
    port = free_port()
    server = serve(port, LIFECYCLED_AUTH_TOKEN=TOKEN)
    yield port
    server.terminate()
    server.wait(timeout=10)


def api(port, method, path, body=None):
    """A request of a second client (not the page), with the token; its JSON answer."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or "null")


class Watch:
    """What went wrong in a page: uncaught exceptions and console errors, responses of 400 and
    above (with whether the request carried the token), and requests that failed."""

    def __init__(self, page):
        self.errors = []
        self.refused = []
        self.failed = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", self._console)
        page.on("response", self._response)
        page.on("requestfailed", lambda request: self.failed.append(
            (request.method, request.url, request.failure)))

    def _console(self, message):
        # Chromium logs every refused response too; `refused` holds those.
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            self.errors.append(message.text)

    def _response(self, response):
        if response.status >= 400:
            carried = response.request.headers.get("authorization") == f"Bearer {TOKEN}"
            self.refused.append((response.status, response.request.method, response.url, carried))


@pytest.fixture
def browser():
    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium is missing: scripts/install-dependencies test installs it"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        yield browser
        browser.close()


def test_the_page_follows_a_device_and_acts_on_it(port, browser):
    api(port, "POST", "/__admin/reset")
    api(port, "POST", "/v1/devices/default/apps", {"name": "mail"})
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    watch = Watch(page)

    page.goto(f"http://127.0.0.1:{port}/")
    # Without the token, the page says what it needs.
    expect(page.locator("#status")).to_have_text(
        "This server needs its bearer token: type it above.")
    page.fill("#token", TOKEN)
    page.click("#token-form button")
    expect(page.locator("#connection")).to_have_text("live")
    expect(page.locator("#devices")).to_contain_text("defaultmanual clock, 1 app")
    expect(page.locator("#apps tbody")).to_contain_text("mail")
    expect(page.locator("#apps tbody .state")).to_have_text(["notRunning"])

    # An event through the form: its result, the app's state, the timeline.
    page.select_option("#event-target", "mail")
    page.select_option("#event-type", "launch")
    page.click("#event-form button")
    expect(page.locator("#status")).to_have_text("mail launch: notRunning → active, 6 callbacks")
    expect(page.locator("#apps tbody .state")).to_have_text(["active"])
    expect(page.locator("#timeline svg")).to_contain_text("willFinishLaunching")

    # An event another client posts reaches the page by the stream alone: the latest entries
    # are what it streamed, and the timeline is drawn again.
    api(port, "POST", "/v1/apps/mail/events", {"type": "home"})
    last = api(port, "GET", "/v1/devices/default")["lastSeq"]
    expect(page.locator("#latest li").first).to_contain_text("inactive → background (home)")
    expect(page.locator("#latest")).to_contain_text("sceneDidEnterBackground(_:)")
    expect(page.locator("#apps tbody .state")).to_have_text(["background"])
    expect(page.locator("#timeline svg")).to_contain_text(f"default: {last} journal entries")

    # The manual clock, moved from the page to the suspension; the device's model and release.
    expect(page.locator("#device-summary")).to_contain_text("iPhone 15 Pro on iOS 26.1 (23B85)")
    expect(page.locator("#device-summary")).to_contain_text("next deadline at")
    page.click("#to-next-deadline")
    expect(page.locator("#status")).to_have_text(
        "The clock moved 2.000 s, to 2.000 s: 0 callbacks, 1 transition")
    expect(page.locator("#apps tbody .state")).to_have_text(["suspended"])
    expect(page.locator("#timeline svg")).to_contain_text("suspension")
    expect(page.locator("#latest li").first).to_contain_text("background → suspended (suspension)")

    # A reset ends the stream; the page follows the device's new journal from its start.
    api(port, "POST", "/v1/devices/default/reset")
    expect(page.locator("#apps tbody tr")).to_have_count(0)
    api(port, "POST", "/v1/devices/default/apps", {"name": "maps"})
    api(port, "POST", "/v1/apps/maps/events", {"type": "launch"})
    expect(page.locator("#latest li")).to_have_count(10)
    expect(page.locator("#latest li").last).to_contain_text("maps")
    expect(page.locator("#latest li").last).to_contain_text("launch")
    expect(page.locator("#connection")).to_have_text("live")
    page.select_option("#event-target", "maps")
    page.select_option("#event-type", "home")
    page.click("#event-form button")
    expect(page.locator("#apps tbody .state")).to_have_text(["background"])

    os.makedirs(os.path.dirname(SCREENSHOT), exist_ok=True)
    page.screenshot(path=SCREENSHOT, full_page=True)
    assert watch.errors == []
    # At most the one stream that ended, the reset's: Chromium may report a stream of a
    # `no-store` response read to its end as aborted (not always).
    stream = f"http://127.0.0.1:{port}/v1/devices/default/journal/stream?since=0"
    assert watch.failed in ([], [("GET", stream, "net::ERR_ABORTED")])
    # Refused: only the requests made before the token was given, as unauthorized.
    assert watch.refused, "the page asked for the token before it had one"
    assert [(status, carried) for status, _, _, carried in watch.refused] == [
        (401, False)] * len(watch.refused)


def test_an_idle_device_costs_one_small_read(port, browser):
    # The page's five-second poll, on the page's own fake clock: a device whose version and
    # clock have not moved is read alone, without its apps and its picture.
    api(port, "POST", "/__admin/reset")
    page = browser.new_page()
    page.clock.install()
    page.add_init_script(f"sessionStorage.setItem('lifecycled.token', '{TOKEN}')")
    paths = []
    page.on("request", lambda request: paths.append(request.url.split(str(port), 1)[1]))
    page.goto(f"http://127.0.0.1:{port}/")
    expect(page.locator("#connection")).to_have_text("live")
    expect(page.locator("#timeline svg")).to_contain_text("default: 0 journal entries")
    del paths[:]
    for _ in range(2):  # the second read of the device comes after the first has decided
        with page.expect_response(lambda response: response.url.endswith("/v1/devices/default")):
            page.clock.run_for(5000)
    assert [path for path in paths if "timeline" in path or "/apps" in path] == []
    assert paths.count("/v1/devices/default") == 2


def test_a_page_of_another_origin_is_refused(port, browser):
    # The server's page as http://localhost:PORT calls http://127.0.0.1:PORT: another origin.
    # The browser hides the refusal from the page (and from Playwright); the server counts it.
    page = browser.new_page()
    page.goto(f"http://localhost:{port}/page.css")
    before = forbidden_origins(port)
    outcome = page.evaluate(
        """url => fetch(url).then(r => `answered ${r.status}`, e => `refused: ${e.name}`)""",
        f"http://127.0.0.1:{port}/v1/devices",
    )
    assert outcome == "refused: TypeError"
    assert forbidden_origins(port) == before + 1


def forbidden_origins(port):
    """How many requests the server answered 403, as /metrics counts them."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        for line in response.read().decode().splitlines():
            if line.startswith('lifecycled_http_requests_total{route="unmatched",status="403"}'):
                return int(line.split()[-1])
    return 0


def test_the_page_through_the_scale_out_router(browser):
    # Two replicas behind the shipped nginx router; the page shows the device its address
    # names, which the router sends to that device's replica.
    directory = tempfile.mkdtemp(prefix="lifecycled-page-router-")
    os.chmod(directory, 0o755)  # nginx's workers (nobody, under root) write temp files
    replica_ports = [free_port(), free_port()]
    replicas = [serve(replica) for replica in replica_ports]
    router = Router(directory, free_port(), replica_ports)
    try:
        wait_for(router.port, "/router/livez")
        request = urllib.request.Request(
            f"http://127.0.0.1:{router.port}/v1/devices/ci-1", method="PUT",
            data=json.dumps({"clock": "manual", "apps": [{"name": "mail"}]}).encode(),
            headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=10).close()

        page = browser.new_page()
        watch = Watch(page)
        page.goto(f"http://127.0.0.1:{router.port}/#ci-1")
        expect(page.locator("#devices .note")).to_contain_text("describes one replica")
        expect(page.locator("#device-title")).to_have_text("ci-1")
        expect(page.locator("#connection")).to_have_text("live")
        page.select_option("#event-target", "mail")
        page.select_option("#event-type", "launch")
        page.click("#event-form button")
        expect(page.locator("#apps tbody .state")).to_have_text(["active"])
        expect(page.locator("#latest")).to_contain_text("sceneDidBecomeActive(_:)")

        assert watch.errors == []
        assert watch.failed == []
        # Refused: only the device list, which the router does not give.
        assert {(status, method, url.split("?")[0]) for status, method, url, _ in watch.refused} \
            == {(501, "GET", f"http://127.0.0.1:{router.port}/v1/devices")}
    finally:
        router.stop()
        for replica in replicas:
            replica.terminate()
            replica.wait(timeout=10)
        shutil.rmtree(directory, ignore_errors=True)


# A page of the attacker's own name, served by the attacker's server; its DNS name then points
# at the server (here: the attacker's server stops, lifecycled starts on its port), and every
# request the page makes is same-origin to the browser, with that name as Host (and as Origin,
# on a POST).
REBINDING_PAGE = b"""<!doctype html><title>attacker</title><script>
async function attempt(method, path, body) {
  const response = await fetch(path, {method, body: body && JSON.stringify(body),
    headers: body ? {"Content-Type": "application/json"} : {}});
  return [response.status, (await response.text()).length];
}
window.attack = () => Promise.all([
  attempt("GET", "/v1/devices"),
  attempt("GET", "/v1/devices/default"),
  attempt("POST", "/v1/devices", {id: "rebound"}),
  attempt("POST", "/v1/devices/default/events", {type: "lock"}),
  attempt("DELETE", "/v1/devices?label=suite%3Dci"),
]);
</script>"""


class AttackerPage(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(REBINDING_PAGE)

    def log_message(self, *arguments):
        pass


@pytest.mark.parametrize("allowed_hosts, statuses", [
    (None, [421] * 5),  # the binary's default
    ("lifecycled", [421] * 5),  # the image's (Dockerfile, Compose)
    ("*", [200, 200, 403, 403, 403]),  # any name: reads are open, changes are not
])
def test_a_rebinding_page_changes_nothing(allowed_hosts, statuses):
    port = free_port()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=shutil.which("chromium"),
            args=["--host-resolver-rules=MAP attacker.example 127.0.0.1"])
        page = browser.new_page()
        attacker = http.server.HTTPServer(("127.0.0.1", port), AttackerPage)
        thread = threading.Thread(target=attacker.serve_forever)
        thread.start()
        page.goto(f"http://attacker.example:{port}/attack")
        attacker.shutdown()
        attacker.server_close()
        thread.join()
        settings = {} if allowed_hosts is None else {"LIFECYCLED_ALLOWED_HOSTS": allowed_hosts}
        server = serve(port, **settings)
        try:
            device = f"http://127.0.0.1:{port}/v1/devices/default"
            with urllib.request.urlopen(device, timeout=10) as response:
                before = json.loads(response.read())
            attempts = page.evaluate("window.attack()")
            browser.close()
            assert [status for status, _ in attempts] == statuses
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/devices") as response:
                assert [d["id"] for d in json.loads(response.read())["devices"]] == ["default"]
            with urllib.request.urlopen(device, timeout=10) as response:
                assert json.loads(response.read()) == before
        finally:
            server.terminate()
            server.wait(timeout=10)
