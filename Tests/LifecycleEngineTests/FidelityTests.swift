import Testing

@testable import LifecycleEngine

/// Cases where the simulator once told an iOS developer something iOS does not do; each test
/// names its source.
@Suite struct FidelityTests {
  let sim = Simulator()

  /// "About the background execution sequence": background time applies in the background. An
  /// app the user opens while its fetch runs is not killed for it: the work ends with the
  /// background stretch.
  @Test func openingAnAppEndsItsBackgroundWorkAndItsDeadline() throws {
    sim.add("mail", modes: [.fetch])
    try sim.post(.backgroundLaunch(.fetch), to: "mail")
    #expect(sim.app("mail").killAt == .seconds(30))
    try sim.post(.launch(), to: "mail")
    #expect(sim.app("mail").backgroundWork.isEmpty)
    #expect(sim.app("mail").killAt == nil)
    #expect(sim.advance(60).transitions.isEmpty)
    #expect(sim.state("mail") == .active)
  }

  /// The same through a lock: the app in front is woken for a push, then the unlock brings it
  /// back.
  @Test func unlockingBackToAnAppEndsItsBackgroundWork() throws {
    sim.add("mail", modes: [.remoteNotification])
    try sim.post(.launch(), to: "mail")
    try sim.post(.lock)
    try sim.post(.backgroundLaunch(.remoteNotification), to: "mail")
    try sim.post(.unlock)
    #expect(sim.app("mail").backgroundWork.isEmpty)
    #expect(sim.advance(60).transitions.isEmpty)
    #expect(sim.state("mail") == .active)
  }

  /// "Processing queued notifications at wakeup time": a suspended app receives queued changes,
  /// protected-file status among them, when it runs again. An app told the data went away is
  /// told it is back before it runs with it.
  @Test func anAppSuspendedWhileLockedIsToldProtectedDataIsBackWhenItRuns() throws {
    sim.add("mail")
    try sim.post(.launch(), to: "mail")
    try sim.post(.beginBackgroundTask(), to: "mail")
    try sim.post(.lock)
    #expect(
      trace(sim.advance(10)) == [
        "applicationProtectedDataWillBecomeUnavailable(_:) → background/background [UIApplication.protectedDataWillBecomeUnavailableNotification]"
      ])
    try sim.post(.endBackgroundTask(id: 1), to: "mail")
    sim.advance(2)
    #expect(sim.state("mail") == .suspended)
    #expect(!sim.app("mail").protectedDataAvailable)
    #expect(
      trace(try sim.post(.unlock)) == [
        "applicationProtectedDataDidBecomeAvailable(_:) → background/background [UIApplication.protectedDataDidBecomeAvailableNotification]",
        "sceneWillEnterForeground(_:)@main → inactive/foregroundInactive [UIScene.willEnterForegroundNotification, UIApplication.willEnterForegroundNotification]",
        "sceneDidBecomeActive(_:)@main → active/foregroundActive [UIScene.didActivateNotification, UIApplication.didBecomeActiveNotification]",
      ])
    #expect(sim.app("mail").protectedDataAvailable)
  }

  /// A change and its reversal while the app could not run cancel out.
  @Test func aLockAndUnlockWhileSuspendedTellTheAppNothing() throws {
    sim.add("mail")
    sim.add("maps")
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    sim.advance(2)
    try sim.post(.lock)
    try sim.post(.unlock)
    #expect(trace(try sim.post(.launch(), to: "mail")).count == 2)
  }

  /// A process launched while the device is locked reads the data as unavailable, and is told
  /// when it comes back.
  @Test func aBackgroundLaunchOnALockedDeviceSeesProtectedDataUnavailable() throws {
    sim.add("mail", modes: [.fetch])
    try sim.post(.lock)
    sim.advance(10)
    try sim.post(.backgroundLaunch(.fetch), to: "mail")
    #expect(!sim.app("mail").protectedDataAvailable)
    #expect(
      trace(try sim.post(.unlock)) == [
        "applicationProtectedDataDidBecomeAvailable(_:) → background/unattached [UIApplication.protectedDataDidBecomeAvailableNotification]"
      ])
  }

  /// `applicationDidEnterBackground(_:)`: "approximately five seconds" to return, wherever the
  /// method is called: a background launch's too.
  @Test func aBackgroundLaunchsDidEnterBackgroundKeepsTheAppBusyAndMeetsTheWatchdog() throws {
    sim.add(
      "mail", .appDelegate, modes: [.fetch],
      behavior: AppBehavior(didEnterBackgroundDuration: .seconds(6)))
    let launch = try sim.post(.backgroundLaunch(.fetch), to: "mail")
    #expect(launch.callbacks.last?.method == .didEnterBackground)
    #expect(launch.waitingCallbacks.map(\.method) == [.performFetch])
    #expect(sim.app("mail").busyUntil == .seconds(6))
    #expect(sim.app("mail").killAt == .seconds(5))
    let watchdog = sim.advance(10)
    #expect(watchdog.callbacks.isEmpty)
    #expect(transitions(watchdog) == ["mail: background → notRunning (watchdog) 0x8badf00d"])
  }

  /// Every callback for a busy app waits until didEnterBackground returns, device-wide ones
  /// included, and arrives in order.
  @Test func deviceWideCallbacksWaitForABusyApp() throws {
    sim.add("mail", .appDelegate, behavior: AppBehavior(didEnterBackgroundDuration: .seconds(3)))
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    try sim.post(.memoryWarning)
    #expect(sim.app("mail").waitingCallbacks.map(\.method) == [.didReceiveMemoryWarning])
    try sim.post(.significantTimeChange)
    let returned = sim.advance(3)
    #expect(returned.callbacks.map(\.method) == [.didReceiveMemoryWarning, .significantTimeChange])
    #expect(returned.callbacks.map(\.time) == [.seconds(3), .seconds(3)])
    #expect(sim.app("mail").waitingCallbacks.isEmpty)
    #expect(sim.app("mail").suspendAt == .seconds(5))
  }

  /// A person's unlock is never refused: the app before the lock comes back when its
  /// didEnterBackground returns, or never if the watchdog kills it first.
  @Test func unlockWhileTheAppIsBusyIsAcceptedAndTheWatchdogCanStillWin() throws {
    sim.add("mail", .appDelegate, behavior: AppBehavior(didEnterBackgroundDuration: .seconds(8)))
    try sim.post(.launch(), to: "mail")
    try sim.post(.lock)
    sim.advance(1)
    let unlock = try sim.post(.unlock)
    #expect(unlock.waitingCallbacks.map(\.method) == [.willEnterForeground, .didBecomeActive])
    #expect(sim.state("mail") == .active)
    let watchdog = sim.advance(10)
    #expect(watchdog.callbacks.isEmpty)
    #expect(transitions(watchdog) == ["mail: active → notRunning (watchdog) 0x8badf00d"])
    #expect(sim.deviceView.foregroundApp == nil)
  }

  /// A force-quit of a frontmost app whose didEnterBackground is slow: its
  /// applicationWillTerminate waits for the method, and the process ends after it.
  @Test func forceQuitWaitsForASlowDidEnterBackgroundThenTerminates() throws {
    sim.add("mail", .appDelegate, behavior: AppBehavior(didEnterBackgroundDuration: .seconds(2)))
    try sim.post(.launch(), to: "mail")
    let quit = try sim.post(.terminate, to: "mail")
    #expect(quit.callbacks.map(\.method) == [.willResignActive, .didEnterBackground])
    #expect(quit.waitingCallbacks.map(\.method) == [.willTerminate])
    #expect(sim.state("mail") == .background)
    let end = sim.advance(2)
    #expect(end.callbacks.map(\.method) == [.willTerminate])
    #expect(transitions(end) == ["mail: background → notRunning (terminate)"])
  }

  /// The user opens the app again before its force-quit has ended: the system does not wait
  /// for the old process's applicationWillTerminate, it starts a new process (Apple's "About
  /// the app launch sequence": a launch of an app that is not running is a cold launch).
  @Test func aLaunchBeforeAForceQuitEndsStartsANewProcess() throws {
    sim.add(
      "mail", .appDelegate, behavior: AppBehavior(didEnterBackgroundDuration: .milliseconds(500)))
    try sim.post(.launch(), to: "mail")
    try sim.post(.terminate, to: "mail")
    let again = try sim.post(.launch(), to: "mail")
    #expect(
      trace(again) == [
        "application(_:willFinishLaunchingWithOptions:) → inactive",
        "application(_:didFinishLaunchingWithOptions:) → inactive [UIApplication.didFinishLaunchingNotification]",
        "applicationDidBecomeActive(_:) → active [UIApplication.didBecomeActiveNotification]",
      ])
    #expect(
      transitions(again) == [
        "mail: background → notRunning (terminate)", "mail: notRunning → inactive (launch)",
        "mail: inactive → active (launch)",
      ])
    #expect(again.waitingCallbacks.isEmpty && sim.app("mail").launches == 2)
    let later = sim.advance(30)
    #expect(later.callbacks.isEmpty && later.transitions.isEmpty)
    #expect(sim.state("mail") == .active)
  }

  /// An app leaves the app switcher when it leaves the inactive state: once a force-quit has
  /// sent it to the background (or its shown window is closed there), closing the switcher no
  /// longer makes it active. Only `applicationWillEnterForeground(_:)` brings a background app
  /// back (Apple's "Managing your app's life cycle"), so one app at most is active.
  @Test func anAppLeavesTheSwitcherWithItsInactiveState() throws {
    sim.add("mail", .appDelegate, behavior: AppBehavior(didEnterBackgroundDuration: .seconds(4)))
    sim.add("notes", .appDelegate)
    try sim.post(.launch(), to: "mail")
    try sim.post(.openSwitcher, to: "mail")
    try sim.post(.terminate, to: "mail")
    try sim.post(.launch(), to: "notes")
    #expect(!sim.app("mail").allowedEvents.contains(.closeSwitcher))
    #expect(refusal { try sim.post(.closeSwitcher, to: "mail") }?.reason == .notAllowedInState)
    #expect(sim.state("notes") == .active && sim.deviceView.foregroundApp == "notes")

    sim.add("photos", .scene, multipleScenes: true)
    try sim.post(.launch(), to: "photos")
    try sim.post(.openScene(), to: "photos")
    try sim.post(.openSwitcher, to: "photos")
    try sim.post(.closeScene(sim.app("photos").focusedScene!), to: "photos")
    #expect(sim.state("photos") == .background)
    #expect(refusal { try sim.post(.closeSwitcher, to: "photos") }?.reason == .notAllowedInState)
  }

  /// `setMemory` changes the running process; a new process starts from the app's
  /// configured footprint (otherwise an app killed over the per-process limit would be killed
  /// at every launch).
  @Test func aNewProcessStartsFromTheConfiguredFootprint() throws {
    let sim = Simulator(perAppLimitMB: 500)
    sim.add("mail", memoryMB: 200, backgroundMemoryMB: 50)
    try sim.post(.launch(), to: "mail")
    let grown = try sim.post(.setMemory(memoryMB: 600), to: "mail")
    #expect(transitions(grown) == ["mail: active → notRunning (jetsam)"])
    try sim.post(.launch(), to: "mail")
    #expect(sim.state("mail") == .active)
    #expect(sim.jetsam.map(\.reason) == [.perProcessLimit])
    #expect(sim.app("mail").memoryMB == 200)
    #expect(sim.app("mail").backgroundMemoryMB == 50)
  }

  // MARK: Continuous background modes are activities

  /// Apple's "Configuring background execution modes": the mode lets an app keep
  /// playing audio or receiving locations in the background; declaring it does not keep an
  /// app that does neither from being suspended.
  @Test(arguments: [BackgroundMode.audio, .location])
  func declaringAContinuousModeKeepsNothingRunning(mode: BackgroundMode) throws {
    sim.add("radio", modes: [mode])
    try sim.post(.launch(), to: "radio")
    try sim.post(.home, to: "radio")
    #expect(transitions(sim.advance(2)) == ["radio: background → suspended (suspension)"])
  }

  /// An activity holds the app in the background for as long as it lasts; when it stops, the
  /// app is suspended `suspendDelay` later, like any idle app.
  @Test(arguments: [BackgroundActivity.audio, .location])
  func anActivityKeepsTheAppRunningUntilItStops(activity: BackgroundActivity) throws {
    sim.add("radio", modes: [activity.requiredMode])
    try sim.post(.launch(), to: "radio")
    let started = try sim.post(.startActivity(activity), to: "radio")
    #expect(started.callbacks.isEmpty && started.transitions.isEmpty)
    #expect(sim.app("radio").activities == [activity])
    try sim.post(.home, to: "radio")
    #expect(sim.app("radio").suspendAt == nil)
    #expect(sim.advance(3600).transitions.isEmpty)
    #expect(sim.state("radio") == .background)
    try sim.post(.stopActivity(activity), to: "radio")
    #expect(sim.app("radio").activities == [])
    #expect(sim.app("radio").suspendAt == .seconds(3602))
    #expect(transitions(sim.advance(2)) == ["radio: background → suspended (suspension)"])
  }

  /// A location launch starts no updates by itself: the app that starts them in
  /// `didUpdateLocations` stays running; a process that dies loses its activities.
  @Test func aLocationLaunchThatStartsUpdatesStaysRunningUntilItDies() throws {
    sim.add("maps", modes: [.location])
    try sim.post(.backgroundLaunch(.location), to: "maps")
    #expect(sim.app("maps").suspendAt == .seconds(2))
    try sim.post(.startActivity(.location), to: "maps")
    #expect(sim.app("maps").suspendAt == nil)
    try sim.post(.crash(), to: "maps")
    #expect(sim.app("maps").activities == [])
    try sim.post(.backgroundLaunch(.location), to: "maps")
    #expect(sim.app("maps").suspendAt == .seconds(2))
  }

  @Test func activityEventsAreRefusedWhereTheyCannotHappen() throws {
    sim.add("radio", modes: [.audio])
    #expect(!sim.app("radio").allowedEvents.contains(.startActivity))
    #expect(
      refusal { try sim.post(.startActivity(.audio), to: "radio") }?.reason == .notAllowedInState)
    try sim.post(.launch(), to: "radio")
    #expect(sim.app("radio").allowedEvents.contains(.startActivity))
    #expect(!sim.app("radio").allowedEvents.contains(.stopActivity))
    #expect(
      refusal { try sim.post(.startActivity(.location), to: "radio") }?.reason
        == .backgroundModeMissing(.location))
    #expect(
      refusal { try sim.post(.stopActivity(.audio), to: "radio") }?.reason == .notAllowedInState)
    try sim.post(.startActivity(.audio), to: "radio")
    #expect(sim.app("radio").allowedEvents.contains(.stopActivity))
    #expect(
      refusal { try sim.post(.startActivity(.audio), to: "radio") }?.reason
        == .activityInProgress(.audio))
    #expect(sim.app("radio").activities == [.audio])
  }

  /// The kernel's priority bands (XNU's `kern_memorystatus.h`: BACKGROUND 3 <
  /// AUDIO_AND_ACCESSORY 12): an app playing audio goes after every other background app, even
  /// a smaller one.
  @Test func jetsamKillsAnAppPlayingAudioLast() throws {
    let sim = Simulator(memoryLimitMB: 1000)
    sim.add("radio", memoryMB: 400, modes: [.audio])
    sim.add("worker", memoryMB: 200)
    sim.add("game", memoryMB: 300)
    try sim.post(.launch(), to: "radio")
    try sim.post(.startActivity(.audio), to: "radio")
    try sim.post(.launch(), to: "worker")
    try sim.post(.beginBackgroundTask(), to: "worker")
    try sim.post(.launch(), to: "game")
    try sim.post(.setMemory(memoryMB: 450), to: "game")
    #expect(transitions(sim.advance(5)) == ["worker: background → notRunning (jetsam)"])
    #expect(sim.state("radio") == .background)
    try sim.post(.setMemory(memoryMB: 650), to: "game")
    #expect(transitions(sim.advance(5)) == ["radio: background → notRunning (jetsam)"])
  }

  // MARK: Power

  /// Apple's `applicationWillTerminate(_:)`: "called ... if your app is running in
  /// the background (not suspended) and the system needs to terminate it". Powering off
  /// terminates every running app that way; a suspended app is never told. UIKit disconnects
  /// scenes when the user closes them or to reclaim memory (`sceneDidDisconnect(_:)`), not at
  /// termination, and the sessions survive the reboot.
  @Test func shutdownTerminatesRunningAppsAndEndsSuspendedOnesSilently() throws {
    sim.add("mail", .appDelegate)
    sim.add("notes")
    sim.add("player")
    try sim.post(.launch(), to: "notes")
    try sim.post(.launch(), to: "player")
    try sim.post(.beginBackgroundTask(), to: "player")
    try sim.post(.launch(), to: "mail")
    sim.advance(2)
    #expect(sim.state("notes") == .suspended)
    let shutdown = try sim.post(.shutdown)
    #expect(
      trace(shutdown) == [
        "applicationWillTerminate(_:) → notRunning [UIApplication.willTerminateNotification]",
        "applicationWillTerminate(_:) → notRunning/unattached [UIApplication.willTerminateNotification]",
      ])
    #expect(shutdown.callbacks.map(\.app) == ["mail", "player"])
    #expect(
      transitions(shutdown) == [
        "mail: active → notRunning (shutdown)", "notes: suspended → notRunning (shutdown)",
        "player: background → notRunning (shutdown)",
      ])
    let kills = shutdown.transitions.filter { $0.isKill }
    #expect(kills.isEmpty)  // metrics and logs count no kill
    #expect(sim.deviceView.poweredOn == false)
    #expect(sim.deviceView.usedMB == 0)
    #expect(sim.deviceView.nextDeadline == nil)
  }

  /// An app whose `didEnterBackground` still runs cannot run `applicationWillTerminate`: the
  /// power goes first.
  @Test func shutdownEndsABusyAppSilently() throws {
    sim.add("mail", behavior: AppBehavior(didEnterBackgroundDuration: .seconds(3)))
    try sim.post(.launch(), to: "mail")
    try sim.post(.home, to: "mail")
    let shutdown = try sim.post(.shutdown)
    #expect(shutdown.callbacks.isEmpty && shutdown.waitingCallbacks.isEmpty)
    #expect(transitions(shutdown) == ["mail: background → notRunning (shutdown)"])
    #expect(sim.advance(10).callbacks.isEmpty)
  }

  @Test func aDeviceThatIsOffRefusesEverythingButBoot() throws {
    sim.add("mail", modes: [.fetch])
    try sim.post(.shutdown)
    #expect(sim.deviceView.allowedEvents == [.boot, .updateOS])
    #expect(sim.app("mail").allowedEvents == [])
    let launch = refusal { try sim.post(.launch(), to: "mail") }
    #expect(launch?.reason == .deviceOff)
    #expect(refusal { try sim.post(.backgroundLaunch(.fetch), to: "mail") }?.reason == .deviceOff)
    let unlock = refusal { try sim.post(DeviceEvent.unlock) }
    #expect(unlock?.reason == .deviceOff)
    #expect(unlock?.currentState == "off")
    #expect(sim.advance(60).transitions.isEmpty)
    try sim.post(.boot)
    #expect(refusal { try sim.post(DeviceEvent.boot) }?.reason == .deviceOn)
  }

  /// A booted device is locked, before its first unlock: protected data stays
  /// unavailable, so an app the system launches in the background meanwhile sees it so, and is
  /// told at the unlock.
  @Test func aBootedDeviceIsLockedAndProtectedDataWaitsForTheFirstUnlock() throws {
    sim.add("mail", modes: [.fetch])
    try sim.post(.launch(), to: "mail")
    try sim.post(.shutdown)
    try sim.post(.boot)
    #expect(sim.deviceView.locked)
    #expect(sim.deviceView.protectedDataAvailable == false)
    #expect(
      sim.deviceView.allowedEvents == [
        .memoryWarning, .unlock, .significantTimeChange, .shutdown, .setConditions,
        .setBackgroundAppRefresh, .push, .deliverMetrics,
      ])
    #expect(refusal { try sim.post(.launch(), to: "mail") }?.reason == .deviceLocked)
    try sim.post(.backgroundLaunch(.fetch), to: "mail")
    #expect(sim.app("mail").protectedDataAvailable == false)
    let unlock = try sim.post(.unlock)
    #expect(
      trace(unlock) == [
        "applicationProtectedDataDidBecomeAvailable(_:) → background/unattached [UIApplication.protectedDataDidBecomeAvailableNotification]"
      ])
    #expect(sim.deviceView.foregroundApp == nil)
  }

  /// Without a passcode there is no data protection: it is available from the boot.
  @Test func withoutAPasscodeProtectedDataIsAvailableFromTheBoot() throws {
    let sim = Simulator(passcode: false)
    try sim.post(.shutdown)
    try sim.post(.boot)
    #expect(sim.deviceView.locked)
    #expect(sim.deviceView.protectedDataAvailable)
  }

  // MARK: Kill codes

  /// Apple's "EXC_CRASH (SIGKILL)": `0xc00010ff` ("cool off"), "killed the app in response to a
  /// thermal event". A kill, so silent; only a running app heats the device.
  @Test func aThermalKillIsSilentWithItsCode() throws {
    sim.add("game")
    try sim.post(.launch(), to: "game")
    let kill = try sim.post(.thermalKill, to: "game")
    #expect(kill.callbacks.isEmpty)
    #expect(transitions(kill) == ["game: active → notRunning (thermalKill) 0xc00010ff"])
    let kills = kill.transitions.filter { $0.isKill }
    #expect(kills.count == 1)
    #expect(sim.app("game").kills == 1)
    #expect(refusal { try sim.post(.thermalKill, to: "game") }?.reason == .notAllowedInState)
  }

  /// "EXC_CRASH (SIGKILL)": `0xdead10cc` ("dead lock"), an app that "held on to a file lock or
  /// SQLite database lock during suspension" is killed when the system suspends it.
  @Test func anAppHoldingAFileLockIsKilledWhenItWouldBeSuspended() throws {
    sim.add("notes", behavior: AppBehavior(holdsFileLockAtSuspension: true))
    try sim.post(.launch(), to: "notes")
    try sim.post(.beginBackgroundTask(), to: "notes")
    try sim.post(.home, to: "notes")
    #expect(sim.advance(10).transitions.isEmpty)
    try sim.post(.endBackgroundTask(id: 1), to: "notes")
    #expect(sim.app("notes").suspendAt == .seconds(12))
    #expect(
      transitions(sim.advance(2)) == [
        "notes: background → notRunning (fileLockAtSuspension) 0xdead10cc"
      ])
    #expect(sim.app("notes").kills == 1)
    #expect(sim.app("notes").restorationStateSaved)
  }
}
