/// What a device event does to the device and its apps: the user powers, locks and unlocks it,
/// the system changes its conditions, delivers pushes and MetricKit payloads.
extension Device {
  func apply(_ event: DeviceEvent) throws(EngineError) -> EventOutcome {
    var issues = Self.parameterIssues(of: event)
    if case .updateOS(let version) = event, issues.isEmpty, profile.release(version) == nil {
      issues.append("version", profile.releaseRule)
    }
    if !issues.isEmpty { throw .invalid(issues) }
    let addressee = try app(addressedBy: event)
    if let reason = refusal(ofDeviceEvent: event.kind) {
      throw .refused(
        Refusal(
          event: event.type, app: nil, currentState: state.rawValue,
          allowedEvents: allowedDeviceEvents, reason: reason))
    }
    try checkRoomForWaitingCallbacks(of: liveApps)
    return perform {
      // The device's entry, as its answer says: the app it names is one of its parameters.
      record(.device(event), app: nil)
      let cause = TransitionCause.event(event.type)
      switch event {
      case .home:
        sendToBackground(apps[status.foregroundApp!]!, cause: cause)  // rule: an app is shown
      case .memoryWarning:
        for app in liveAppsInOrder where app.state.isRunning {
          deliver(.didReceiveMemoryWarning, to: app, cause: cause)
        }
      case .lock:
        status.locked = true
        if let name = status.foregroundApp, let app = apps[name] {
          status.appBeforeLock = name
          sendToBackground(app, cause: cause)
        }
        if configuration.passcode { lockProtectedData(cause: cause) }
      case .unlock:
        status.locked = false
        status.protectedDataLocksAt = nil
        setProtectedData(available: true, cause: cause)
        // `BGProcessingTask`: "The system terminates any background processing tasks running
        // when the user starts using the device." (Apps in order only when there are some.)
        if liveApps.contains(where: \.runsProcessingTask) {
          for app in liveAppsInOrder where app.runsProcessingTask {
            for work in app.backgroundWork where work.isRunningProcessingTask {
              expireBackgroundWork(work.id, of: app, cause: cause)
            }
            reschedule(app)
          }
        }
        if let name = status.appBeforeLock, let app = apps[name] {
          status.appBeforeLock = nil
          bringToForeground(app, via: nil, cause: cause)
        }
      case .significantTimeChange:
        for app in liveAppsInOrder where !app.prewarmed {  // no app code to tell yet
          if app.state == .suspended {
            app.significantTimeChangePending = true
          } else {
            deliver(.significantTimeChange, to: app, cause: cause)
          }
        }
      case .shutdown: shutDown(cause: cause)
      case .boot:
        status.poweredOn = true
        status.bootSession += 1
        status.protectedDataAvailable = !configuration.passcode  // until the first unlock
      case .setConditions(let change): setConditions(change)
      // The addressee of these two exists: `unknownApp` was thrown for it above otherwise.
      case .setBackgroundAppRefresh(_, let enabled):
        addressee!.backgroundAppRefresh = enabled
        weighAgain(addressee!)
      case .push(_, let kind, let payload): deliverPush(to: addressee!, kind, payload: payload)
      case .deliverMetrics: deliverMetricsNow()
      case .updateOS(let version): status.osVersion = version
      }
    }
  }

  /// The app a device event names (a push's, a switch's), if it names one.
  private func app(addressedBy event: DeviceEvent) throws(EngineError) -> App? {
    guard let name = event.app else { return nil }
    guard let app = AppName(name).flatMap({ apps[$0] }) else {
      throw .invalid([
        ValidationIssue(field: "app", message: "must name an app of the device: no '\(name)'")
      ])
    }
    return app
  }

  /// Power off (Apple's `applicationWillTerminate(_:)`: called when the app is "running in the
  /// background (not suspended) and the system needs to terminate it"): every running app whose
  /// code can run gets the method; a suspended or busy app ends silently. The device is then
  /// off and locked, its own deadlines and pressure episode gone.
  private func shutDown(cause: TransitionCause) {
    for app in liveAppsInOrder {
      if app.state.isRunning, !app.isBusy(at: status.now), app.waitingCallbacks.isEmpty {
        deliver(.willTerminate, to: app, then: .notRunning, cause: cause)
      } else {
        changeState(app, to: .notRunning, cause: cause)
      }
    }
    status.poweredOn = false
    status.locked = true
    status.appBeforeLock = nil
    status.protectedDataAvailable = false
    status.protectedDataLocksAt = nil
    status.underPressure = false
    status.warningGraceEndsAt = nil
  }

  /// Protected files lock down `protectedDataLockDelay` after a lock ("shortly before protected
  /// files are locked down", Apple's `applicationProtectedDataWillBecomeUnavailable(_:)`).
  private func lockProtectedData(cause: TransitionCause) {
    if scheduler.protectedDataLockDelay > .zero {
      status.protectedDataLocksAt = status.now + scheduler.protectedDataLockDelay
    } else {
      setProtectedData(available: false, cause: cause)
    }
  }

  /// Protected files lock or unlock: running apps are told now, suspended ones when they next
  /// run (`resume`). Running apps always know the device's state, so with no change (an
  /// unlock within the lock's delay) there is nobody to tell.
  func setProtectedData(available: Bool, cause: TransitionCause) {
    guard available != status.protectedDataAvailable else { return }
    status.protectedDataAvailable = available
    for app in liveAppsInOrder where app.state.isRunning {
      tellProtectedDataState(to: app, cause: cause)
    }
  }

  /// Tells `app` the protected-data state if it has not been told: a change and its reversal
  /// while it could not run cancel out (Apple's "Processing queued notifications at wakeup
  /// time" lists protected-file status among the queued notifications).
  func tellProtectedDataState(to app: App, cause: TransitionCause) {
    guard app.protectedDataAvailable != status.protectedDataAvailable else { return }
    app.protectedDataAvailable = status.protectedDataAvailable
    deliver(
      status.protectedDataAvailable
        ? .protectedDataDidBecomeAvailable : .protectedDataWillBecomeUnavailable,
      to: app, cause: cause)
  }
}
