import JSONCore
import LifecycleEngine

/// The views of a device and its apps (described in `openapi.yaml`), written member by member.
extension JSONWriter {
  mutating func device(_ device: DeviceView) {
    object { w in
      w.member("id", unescaped: device.id)
      w.member("clock", device.clock)
      w.member("now", time: device.now)
      w.member("poweredOn", device.poweredOn)
      w.member("model", device.configuration.model)
      w.member("modelIdentifier", device.modelIdentifier)
      w.member("osVersion", device.osRelease.version)
      w.member("osBuild", device.osRelease.build)
      w.member("bootSession", device.bootSession)
      w.member("locked", device.locked)
      w.member("passcode", device.passcode)
      w.member("protectedDataAvailable", device.protectedDataAvailable)
      w.member("protectedDataLocksAt", time: device.protectedDataLocksAt)
      w.member("foregroundApp", device.foregroundApp)
      w.key("labels")
      w.labels(device.labels)
      w.member("idleTimeoutSeconds", seconds: device.idleTimeout)
      w.member("apps", device.apps)
      w.member("lastSeq", device.lastSeq)
      w.key("memory")
      w.object { w in
        w.member("usedMB", device.usedMB)
        w.member("limitMB", device.memory.deviceMB)
        w.member("perAppLimitMB", device.memory.appMB)
        w.member("backgroundAppLimitMB", device.memory.backgroundAppMB)
        w.member("increasedAppLimitMB", device.memory.increasedAppMB)
        w.member("pressure", device.pressure)
        w.member("warningGraceEndsAt", time: device.warningGraceEndsAt)
      }
      w.key("conditions")
      w.object { $0.members(of: device.conditions) }
      w.member("allowedEvents", device.allowedEvents)
      w.member("nextDeadline", time: device.nextDeadline)
      w.key("counters")
      w.object { w in
        w.members(of: device.counters)
        w.member("jetsamKills", device.jetsamKills)
        w.member("journalEntries", device.journalEntries)
        w.member("journalDropped", device.journalDropped)
      }
    }
  }

  /// `[{"id":…,"state":…,"restorationData":…,"savedRestorationData":…}]`, in a view and in a
  /// snapshot alike.
  mutating func sceneSessions(_ sessions: [SceneSession]) {
    array(sessions) { w, session in
      w.object { w in
        w.member("id", session.id)
        w.member("state", session.state)
        w.member("restorationData", json: session.restorationData)
        w.member("savedRestorationData", json: session.savedRestorationData)
      }
    }
  }

  /// Why the system holds background work back: `[{"reason": …, "detail": …}]`.
  mutating func holdReasons(_ reasons: [HoldReason]) {
    array(reasons) { w, reason in
      w.object { w in
        w.member("reason", reason.name)
        w.member("detail", reason.detail)
      }
    }
  }

  /// A pending `BGTaskScheduler` request, its `earliestBeginDate` left out when it has none,
  /// then what `more` writes.
  mutating func taskRequest(
    _ request: TaskRequest, more: (inout JSONWriter) -> Void = { _ in }
  ) {
    object { w in
      w.member("identifier", request.identifier)
      w.member("kind", request.kind)
      if let date = request.earliestBeginDate { w.member("earliestBeginDate", time: date) }
      w.member("requiresNetworkConnectivity", request.requiresNetworkConnectivity)
      w.member("requiresExternalPower", request.requiresExternalPower)
      if let strategy = request.strategy { w.member("strategy", strategy) }
      if let seq = request.queuedAtSeq { w.member("queuedAtSeq", seq) }
      more(&w)
    }
  }

  mutating func app(_ app: AppView) {
    object { w in
      w.member("name", unescaped: app.name)
      w.member("device", unescaped: app.device)
      // How it was configured, with the process's footprints as `setMemory` left them.
      var configuration = app.spec
      configuration.memoryMB = app.memoryMB
      configuration.backgroundMemoryMB = app.backgroundMemoryMB
      w.members(of: configuration)
      w.member("state", app.state)
      // Left out where they have no value (an app-delegate app's scene state, background work
      // not under way), as `lastTermination` is: every client generator reads an absent member
      // as optional, and some cannot read a null one.
      if let sceneState = app.sceneState { w.member("sceneState", sceneState) }
      w.member("focusedScene", app.focusedScene)
      w.key("scenes")
      w.sceneSessions(app.sessions)
      w.member("footprintMB", app.footprintMB)
      w.member("activities", app.activities)
      w.member("allowedEvents", app.allowedEvents)
      w.member("busyUntil", time: app.busyUntil)
      w.key("waitingCallbacks")
      w.callbacks(app.waitingCallbacks, waiting: true)
      w.member("suspendAt", time: app.suspendAt)
      w.member("killAt", time: app.killAt)
      w.key("backgroundTasks")
      w.array(app.backgroundTasks) { w, task in
        w.object { w in
          w.member("id", task.id)
          w.member("name", task.name)
          w.member("expiresAt", time: task.expiresAt)
          w.member("expired", task.expired)
        }
      }
      w.key("backgroundWork")
      w.array(app.backgroundWork) { w, work in
        w.object { w in
          w.member("id", work.id)
          w.member("reason", work.reason)
          if let identifier = work.identifier { w.member("identifier", identifier) }
          w.member("deadline", time: work.deadline)
          w.member("expired", work.expired)
          if let progress = work.progress { w.member("progress", progress: progress) }
        }
      }
      w.key("taskRequests")
      w.array(app.taskRequests) { w, pending in
        w.taskRequest(pending.request) { w in
          w.member("eligible", pending.heldBy.isEmpty)
          w.key("heldBy")
          w.holdReasons(pending.heldBy)
        }
      }
      w.member("backgroundAppRefresh", app.backgroundAppRefresh)
      w.key("pendingExits")
      w.exitMetric(app.pendingExits)
      w.key("metricPayloads")
      w.reports(app.metricPayloads)
      w.key("diagnosticPayloads")
      w.reports(app.diagnosticPayloads)
      w.member("significantTimeChangePending", app.significantTimeChangePending)
      w.member("protectedDataAvailable", app.protectedDataAvailable)
      w.member("backgroundLaunchBlocked", app.backgroundLaunchBlocked)
      w.member("restorationStateSaved", app.restorationStateSaved)
      w.member("restorationData", json: app.restorationData)
      w.member("savedRestorationData", json: app.savedRestorationData)
      w.member("prewarmed", app.prewarmed)
      w.member("debuggerAttached", app.debuggerAttached)
      w.member("version", app.version)
      w.member("build", app.build)
      w.member("installation", app.installation)
      w.member("identifierForVendor", app.identifierForVendor)
      if let termination = app.lastTermination {
        w.key("lastTermination")
        w.termination(termination, vendorIdentifier: app.identifierForVendor(installation:))
      }
      w.key("counters")
      w.object { w in
        w.member("launches", app.launches)
        w.member("kills", app.kills)
      }
    }
  }

  /// What the watchdog timed: `{"event":"scene-create","visibility":"foreground"}`.
  mutating func watchdogTransition(_ transition: WatchdogTransition) {
    object { w in
      w.member("event", transition.event)
      w.member("visibility", transition.visibility)
    }
  }

  /// A device's labels, `{"key":"value",…}` in key order.
  mutating func labels(_ labels: [String: String]) {
    object { w in
      for (key, value) in labels.sorted(by: { $0.key < $1.key }) {
        w.key(escaping: key)
        w.string(value)
      }
    }
  }

  /// How a process ended: `{"cause":…,"jetsamReason":…,"watchdog":…,"terminationCode":…,
  /// "time":…,"state":…}`, the reason for jetsam only, the timed transition for the watchdog
  /// only, the code if it has one. Left out before any process has ended, as a member absent
  /// rather than null, which every client generator reads as optional.
  ///
  /// What the process ran with follows (`ranWith`), the installation's `identifierForVendor`
  /// beside its number where `vendorIdentifier` gives it (the app's view).
  mutating func termination(
    _ termination: Termination, vendorIdentifier: ((Int) -> String)? = nil
  ) {
    object { w in
      w.member("cause", termination.cause.name)
      w.member("endedBy", termination.endedBy)
      if let reason = termination.jetsamReason { w.member("jetsamReason", reason) }
      if let watchdog = termination.watchdog {
        w.key("watchdog")
        w.watchdogTransition(watchdog)
      }
      if let code = termination.terminationCode { w.member("terminationCode", code) }
      w.member("time", time: termination.time)
      w.member("state", termination.state)
      if let ranWith = termination.ranWith {
        w.key("ranWith")
        w.object { w in
          w.members(of: ranWith)
          if let vendorIdentifier {
            w.member("identifierForVendor", vendorIdentifier(ranWith.installation))
          }
        }
      }
    }
  }
}
