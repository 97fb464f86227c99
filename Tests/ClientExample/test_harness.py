"""An example test harness: a simulated app driven through the client generated from openapi.yaml.

Write yours the same way: generate the client (`openapi-python-client generate --url
http://HOST:8080/openapi.yaml`), give each test its own device with a manual clock, post events,
step time, and assert on the exact callbacks, transitions and journal. Every request and answer
here is a typed model of the generated package; errors come back as their problem types.
"""

import pytest

from lifecycled_client.api.apps import create_app, get_app
from lifecycled_client.api.devices import create_device, get_device, list_profiles
from lifecycled_client.api.events import post_app_event, post_device_event
from lifecycled_client.api.logs import get_journal, get_timeline, stream_journal
from lifecycled_client.api.time import advance_clock
from lifecycled_client.models import (
    AdvanceBySeconds,
    App,
    AppBehaviorSettings,
    AppCreate,
    AppEventResponse,
    AppState,
    AttachDebuggerEvent,
    AttachDebuggerEventType,
    CallbackMethod,
    ClockAdvance,
    ClockMode,
    CrashEvent,
    CrashEventType,
    Device,
    DeviceBootEvent,
    DeviceBootEventType,
    DeviceShutdownEvent,
    DeviceShutdownEventType,
    DeviceUpdateOSEvent,
    DeviceUpdateOSEventType,
    DeviceCreate,
    EventType,
    HomeEvent,
    HomeEventType,
    Journal,
    JournalEntryKind,
    JournalTransitionEntry,
    LaunchEvent,
    LaunchEventType,
    Lifecycle,
    Problem,
    PurgeEvent,
    PurgeEventType,
    Profiles,
    RefusalProblem,
    ReinstallEvent,
    ReinstallEventType,
    SetMemoryEvent,
    SetMemoryEventType,
    TerminateEvent,
    TerminateEventType,
    TerminationEndedBy,
    TransitionCause,
    UpdateAppEvent,
    UpdateAppEventType,
)


def test_a_launched_app_sent_home_is_suspended_two_seconds_later(client):
    device = create_device.sync(client=client, body=DeviceCreate(id="ci-1", clock=ClockMode.MANUAL))
    assert isinstance(device, Device) and device.now == 0
    app = create_app.sync("ci-1", client=client, body=AppCreate(name="mail"))
    assert isinstance(app, App) and app.lifecycle == Lifecycle.SCENE

    launched = post_app_event.sync(
        "ci-1", "mail", client=client, body=LaunchEvent(type_=LaunchEventType.LAUNCH)
    )
    assert isinstance(launched, AppEventResponse) and isinstance(launched.event, LaunchEvent)
    assert (launched.previous_state, launched.state) == (AppState.NOTRUNNING, AppState.ACTIVE)
    assert [(callback.scene, callback.method) for callback in launched.callbacks] == [
        (None, CallbackMethod.WILL_FINISH_LAUNCHING),
        (None, CallbackMethod.DID_FINISH_LAUNCHING),
        (None, CallbackMethod.CONFIGURATION_FOR_CONNECTING),
        ("main", CallbackMethod.SCENE_WILL_CONNECT),
        ("main", CallbackMethod.SCENE_WILL_ENTER_FOREGROUND),
        ("main", CallbackMethod.SCENE_DID_BECOME_ACTIVE),
    ]
    # The names stand for UIKit's selectors, which the wire carries.
    assert CallbackMethod.SCENE_WILL_CONNECT == "scene(_:willConnectTo:options:)"

    home = post_app_event.sync(
        "ci-1", "mail", client=client, body=HomeEvent(type_=HomeEventType.HOME)
    )
    assert isinstance(home, AppEventResponse) and home.state == AppState.BACKGROUND
    assert [callback.method for callback in home.callbacks] == [
        CallbackMethod.SCENE_WILL_RESIGN_ACTIVE,
        CallbackMethod.SCENE_DID_ENTER_BACKGROUND,
    ]

    advanced = advance_clock.sync("ci-1", client=client, body=AdvanceBySeconds(seconds=10))
    assert isinstance(advanced, ClockAdvance) and advanced.now == 10
    [suspension] = advanced.transitions
    assert (suspension.time, suspension.to, suspension.cause) == (
        2,
        AppState.SUSPENDED,
        TransitionCause.SUSPENSION,
    )

    # A journal entry's event is typed as the request's was.
    events = get_journal.sync("ci-1", client=client, kind=JournalEntryKind.EVENT)
    assert isinstance(events, Journal)
    assert [type(entry.event) for entry in events.entries] == [LaunchEvent, HomeEvent]

    journal = get_journal.sync("ci-1", client=client, kind=JournalEntryKind.TRANSITION)
    assert isinstance(journal, Journal) and not journal.has_more
    assert all(isinstance(entry, JournalTransitionEntry) for entry in journal.entries)
    assert [(entry.transition.from_, entry.transition.to) for entry in journal.entries] == [
        (AppState.NOTRUNNING, AppState.BACKGROUND),
        (AppState.BACKGROUND, AppState.INACTIVE),
        (AppState.INACTIVE, AppState.ACTIVE),
        (AppState.ACTIVE, AppState.INACTIVE),
        (AppState.INACTIVE, AppState.BACKGROUND),
        (AppState.BACKGROUND, AppState.SUSPENDED),
    ]
    # The same as Server-Sent Events: with a timeout, a plain HTTP client gets the whole stream.
    stream = stream_journal.sync("ci-1", client=client, kind=JournalEntryKind.TRANSITION, timeout=0)
    assert isinstance(stream, str)
    assert [line for line in stream.splitlines() if line.startswith(("id:", "event:"))] == [
        "id: 3-3", "id: 3-8", "id: 3-10", "id: 3-13", "id: 3-15", "id: 3-16", "event: end",
    ]
    # The journal drawn, to attach to a report: an SVG, read as text.
    picture = get_timeline.sync("ci-1", client=client)
    assert isinstance(picture, str) and picture.startswith("<svg ")
    assert ">suspension</text>" in picture


def test_the_next_launch_learns_how_the_last_process_ended(client):
    """A crash reporter's questions at launch: a launch past its 20 s is a watchdog kill in the
    foreground, which lastTermination tells and whose crash report MetricKit hands the first
    process that runs free (under the debugger, which keeps the watchdog off); an app update in
    between is what makes a crash reporter's heuristic stand down."""
    create_device.sync(client=client, body=DeviceCreate(id="ci-1", clock=ClockMode.MANUAL))
    slow = AppCreate(name="slow", behavior=AppBehaviorSettings(did_finish_launching_seconds=25))
    create_app.sync("ci-1", client=client, body=slow)
    post_app_event.sync("ci-1", "slow", client=client, body=LaunchEvent(type_=LaunchEventType.LAUNCH))
    advance_clock.sync("ci-1", client=client, body=AdvanceBySeconds(seconds=21))

    app = get_app.sync("ci-1", "slow", client=client)
    assert isinstance(app, App)
    ended = app.last_termination
    assert (ended.ended_by, ended.state, ended.time) == (TerminationEndedBy.SYSTEM, "active", 20)
    assert ended.ran_with.app_version == app.version == "1.0"

    post_app_event.sync(
        "ci-1", "slow", client=client,
        body=UpdateAppEvent(type_=UpdateAppEventType.UPDATEAPP, version="1.1"),
    )
    post_app_event.sync("ci-1", "slow", client=client, body=LaunchEvent(type_=LaunchEventType.LAUNCH))
    post_app_event.sync(
        "ci-1", "slow", client=client,
        body=AttachDebuggerEvent(type_=AttachDebuggerEventType.ATTACHDEBUGGER),
    )
    advanced = advance_clock.sync("ci-1", client=client, body=AdvanceBySeconds(seconds=25))
    assert isinstance(advanced, ClockAdvance)
    report = advanced.callbacks[-1]
    assert report.method == CallbackMethod.DID_RECEIVE_DIAGNOSTIC_PAYLOADS
    crash = report.arguments.diagnostic_payloads[0].crash_diagnostics[0]
    assert (crash.application_version, crash.signal) == ("1.0", 9)
    assert crash.termination_reason == "Namespace FRONTBOARD, Code 0x8badf00d"
    app = get_app.sync("ci-1", "slow", client=client)
    assert app.last_termination.ran_with.app_version != app.version  # updated since: not a hang


def _looks_like_a_watchdog_termination(device, app):
    """A crash reporter's heuristic at launch (Sentry's is the model): the last process ended
    by the system in the foreground, and nothing else explains it: the same app version and
    build, OS version, boot session and installation, and no debugger attached."""
    ended = app.last_termination
    if not ended:  # a new installation: nothing to compare with
        return False
    ran = ended.ran_with
    return (
        ended.ended_by == TerminationEndedBy.SYSTEM
        and ended.state in ("active", "inactive")
        and (ran.app_version, ran.build) == (app.version, app.build)
        and (ran.os_version, ran.boot_session) == (device.os_version, device.boot_session)
        and ran.installation == app.installation
        and not ran.debugger_attached
    )


@pytest.mark.parametrize(
    "branch",
    ["killed", "app updated", "OS updated", "rebooted", "reinstalled", "debugger",
     "user quit", "crashed", "in background"],
)
def test_each_branch_of_a_crash_reporters_heuristic(client, branch):
    """Only a kill in the foreground with nothing else to explain it looks like a watchdog
    termination; each other branch is one fact lifecycled shows that makes the heuristic stand
    down, as it should in the field."""
    create_device.sync(client=client, body=DeviceCreate(id="ci-1", clock=ClockMode.MANUAL))
    create_app.sync("ci-1", client=client, body=AppCreate(name="mail"))

    def app_event(body):
        assert not isinstance(post_app_event.sync("ci-1", "mail", client=client, body=body), Problem)

    def device_event(body):
        assert not isinstance(post_device_event.sync("ci-1", client=client, body=body), Problem)

    app_event(LaunchEvent(type_=LaunchEventType.LAUNCH))
    if branch == "debugger":
        app_event(AttachDebuggerEvent(type_=AttachDebuggerEventType.ATTACHDEBUGGER))
    if branch == "in background":
        app_event(HomeEvent(type_=HomeEventType.HOME))
    if branch == "user quit":
        app_event(TerminateEvent(type_=TerminateEventType.TERMINATE))
    elif branch == "crashed":
        app_event(CrashEvent(type_=CrashEventType.CRASH))
    else:
        app_event(PurgeEvent(type_=PurgeEventType.PURGE))  # jetsam, as out of memory
    if branch == "app updated":
        app_event(UpdateAppEvent(type_=UpdateAppEventType.UPDATEAPP, version="1.1"))
    if branch in ("OS updated", "rebooted"):
        device_event(DeviceShutdownEvent(type_=DeviceShutdownEventType.SHUTDOWN))
        if branch == "OS updated":
            device_event(DeviceUpdateOSEvent(type_=DeviceUpdateOSEventType.UPDATEOS, version="26.4"))
        device_event(DeviceBootEvent(type_=DeviceBootEventType.BOOT))
    if branch == "reinstalled":
        app_event(ReinstallEvent(type_=ReinstallEventType.REINSTALL))

    device = get_device.sync("ci-1", client=client)
    app = get_app.sync("ci-1", "mail", client=client)
    assert _looks_like_a_watchdog_termination(device, app) == (branch == "killed")


def test_errors_come_back_as_their_problem_types(client):
    create_device.sync(client=client, body=DeviceCreate(id="ci-1", clock=ClockMode.MANUAL))
    create_app.sync("ci-1", client=client, body=AppCreate(name="mail"))

    refused = post_app_event.sync(
        "ci-1", "mail", client=client, body=HomeEvent(type_=HomeEventType.HOME)
    )
    assert isinstance(refused, RefusalProblem)
    assert (refused.status, refused.type_) == (409, "urn:lifecycled:problem:event-refused")
    assert (refused.event, refused.current_state) == (EventType.HOME, AppState.NOTRUNNING)
    assert refused.allowed_events == [
        EventType.LAUNCH, EventType.PREWARM, EventType.BACKGROUNDLAUNCH,
        EventType.UPDATEAPP, EventType.REINSTALL,
    ]

    missing = post_app_event.sync(
        "nope", "mail", client=client, body=LaunchEvent(type_=LaunchEventType.LAUNCH)
    )
    assert isinstance(missing, Problem) and not isinstance(missing, RefusalProblem)
    assert (missing.status, missing.type_, missing.detail) == (
        404,
        "urn:lifecycled:problem:not-found",
        "no device 'nope'",
    )


# A matrix of devices as Apple ships them: one test case per model and release, each with a
# device of its own. `list_profiles` lists what the server knows, each figure with its source.
@pytest.mark.parametrize("model,os_version", [("iPhone 11", "26.1"), ("iPhone16,1", "26.4")])
def test_an_app_past_its_models_limit_is_killed(client, model, os_version):
    profiles = list_profiles.sync(client=client)
    assert isinstance(profiles, Profiles)
    [known] = [m for m in profiles.models if model in (m.name, m.identifier)]
    assert os_version in known.os_versions
    device = create_device.sync(
        client=client, body=DeviceCreate(clock=ClockMode.MANUAL, model=model, os_version=os_version)
    )
    assert isinstance(device, Device)
    assert (device.model, device.os_version) == (known.name, os_version)
    limit = device.memory.per_app_limit_mb
    assert limit == known.app_limit.megabytes
    create_app.sync(device.id, client=client, body=AppCreate(name="game"))
    post_app_event.sync(device.id, "game", client=client, body=LaunchEvent(type_=LaunchEventType.LAUNCH))
    grown = post_app_event.sync(
        device.id, "game", client=client,
        body=SetMemoryEvent(type_=SetMemoryEventType.SETMEMORY, memory_mb=limit + 1),
    )
    assert isinstance(grown, AppEventResponse) and grown.state == AppState.NOTRUNNING
