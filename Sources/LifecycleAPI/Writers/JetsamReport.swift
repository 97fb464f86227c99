import JSONCore
import LifecycleEngine

// A jetsam event as the report "Identifying high-memory use with jetsam event reports"
// describes it: the header's page size and largest process, then every process with its
// resident pages, its states and, for the killed ones, the reason.

/// The page size of the devices simulated: 16 KiB, as on arm64 iPhones.
let jetsamPageSize = 16_384

extension JetsamProcess {
  /// The resident pages its footprint takes.
  var residentPages: Int { footprintMB * (1 << 20) / jetsamPageSize }

  /// The report's `states`: `frontmost` for the foreground app, `suspended` for a suspended
  /// one, none for one running in the background.
  var reportStates: [String] {
    state.isForeground ? ["frontmost"] : state == .suspended ? ["suspended"] : []
  }
}

extension JetsamEvent {
  /// The name of the process with the most pages (the first in the report's order of those
  /// with as many).
  var largestProcess: AppName? {
    processes.max { $0.footprintMB < $1.footprintMB }?.app
  }
}

extension JSONWriter {
  /// `{"time":…,"product":"iPhone16,1","build":"iPhone OS 26.1 (23B85)",`
  /// `"memoryStatus":{"pageSize":16384},"largestProcess":…,"processes":[…]}`
  mutating func jetsamReport(_ event: JetsamEvent) {
    object { w in
      w.member("time", time: event.time)
      w.member("product", event.product)
      w.member("build", event.os.reportName)
      w.key("memoryStatus")
      w.object { $0.member("pageSize", jetsamPageSize) }
      w.member("largestProcess", event.largestProcess)
      w.key("processes")
      w.array(event.processes) { w, process in
        w.object { w in
          w.member("name", process.app)
          w.member("rpages", process.residentPages)
          w.member("states", process.reportStates)
          if let reason = process.reason { w.member("reason", reason) }
          w.member("state", process.state)
        }
      }
    }
  }
}
