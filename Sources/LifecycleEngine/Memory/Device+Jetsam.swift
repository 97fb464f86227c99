/// Memory accounting and jetsam (LifecycleEngine.docc, "Memory and jetsam").
///
/// `usedMB` is the sum of the live apps' footprints, kept by `changeState` and `setFootprint`.
/// Victims are kept in two heaps, suspended and background-running, ordered by band (apps
/// playing audio last), then largest first, then least recently used, so choosing one never
/// scans the device's apps.
extension Device {
  var isOverLimit: Bool { usedMB > profile.memory.deviceMB }

  /// The per-process limit jetsam holds `app` to in `state`.
  func processLimit(of app: App, in state: AppState) -> Int {
    profile.memory.appLimit(
      inForeground: state.isForeground, increased: app.spec.increasedMemoryLimit)
  }

  /// Notes that `app`'s place among jetsam's victims may have changed: its state, footprint,
  /// activities or last use (filed when jetsam next reads the order, `AppQueues`).
  func updateVictimOrder(of app: App) {
    queues.noteChange(of: app)
  }

  /// Sets the footprint of the app's current phase (foreground or background) to `megabytes`.
  func setFootprint(of app: App, to megabytes: Int) {
    let old = app.footprint
    if app.state.isForeground {
      app.memoryMB = megabytes
    } else {
      app.backgroundMemoryMB = megabytes
    }
    usedMB += app.footprint - old
    notePassingLimit(of: app, in: app.state)
    updateVictimOrder(of: app)
  }

  /// Notes an app whose footprint in `state` passes its per-process limit there, as it grows
  /// or moves to a state with a lower limit. (An app that ends an operation over its limit
  /// passed it at some step: only those steps need noting, so the list is nearly always
  /// empty.)
  func notePassingLimit(of app: App, in state: AppState) {
    if app.footprint(in: state) > processLimit(of: app, in: state) {
      grewPastProcessLimit.append(app.name)
    }
  }

  /// Kills apps until memory is within the device's budget, the way jetsam does.
  ///
  /// First any app over the per-process limit, whatever its state (a suspended or prewarmed
  /// process's memory counts as a running one's: "Identifying high-memory use with jetsam
  /// event reports"); then, while used memory exceeds the
  /// limit: suspended apps; then a memory warning to every running app, the foreground app
  /// first (once per pressure episode); then, once `memoryWarningGrace` has passed and if
  /// pressure persists, background scenes that hold memory disconnect, and then
  /// background-running apps die. The foreground app dies only for the per-process limit.
  /// What it kills joins the jetsam event under way (`endJetsamEvent`).
  func relieveMemoryPressure() {
    let grown = grewPastProcessLimit
    grewPastProcessLimit = []
    for name in grown {
      guard let app = apps[name], app.state.isLive,
        app.footprint > processLimit(of: app, in: app.state)
      else {
        continue
      }
      kill(app, cause: .jetsam(.perProcessLimit), jetsamReason: .perProcessLimit)
    }
    killVictims { $0.queues.firstSuspendedVictim }
    if isOverLimit, !status.underPressure {
      status.underPressure = true
      warnRunningApps()
      let grace = scheduler.memoryWarningGrace
      status.warningGraceEndsAt = grace > .zero ? status.now + grace : nil
    }
    if isOverLimit, status.warningGraceEndsAt == nil {
      disconnectBackgroundScenes()
      killVictims { $0.queues.firstBackgroundVictim }
    }
    if !isOverLimit {  // the episode is over, however it ended: the next one warns again
      status.underPressure = false
      status.warningGraceEndsAt = nil
    }
  }

  /// Ends the jetsam event under way, if jetsam killed since the last one ended: the kills of
  /// one instant (a `purge`'s with those it made) are one event, which lists the processes
  /// they left. Called once the instant is over: at the end of each operation, and before a
  /// clock advance fires a deadline at a later instant.
  func endJetsamEvent() {
    guard jetsamLog.isEventUnderWay else { return }
    ledger.add(
      jetsamLog.endEvent(
        survivors: liveAppsInOrder, product: profile.identifier, os: osRelease))
  }

  /// The pressure episode's memory warning: the foreground app first, then the others in name
  /// order ("Responding to memory warnings").
  private func warnRunningApps() {
    let cause = TransitionCause.jetsam(.vmPageshortage)
    let foreground = status.foregroundApp.flatMap { apps[$0] }
    if let foreground { deliver(.didReceiveMemoryWarning, to: foreground, cause: cause) }
    for app in liveAppsInOrder where app.state.isRunning && app !== foreground {
      deliver(.didReceiveMemoryWarning, to: app, cause: cause)
    }
  }

  /// Kills the first app of the order `victim` reads (its slot) while the device is over its
  /// limit. (A closure, not a key path: a key path to a class's property is made at run time,
  /// on every event.)
  private func killVictims(_ victim: (Device) -> Int?) {
    while isOverLimit, let slot = victim(self) {
      kill(slots[slot], cause: .jetsam(.vmPageshortage), jetsamReason: .vmPageshortage)
    }
  }
}
