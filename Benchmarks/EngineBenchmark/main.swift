// Measures the lifecycle engine alone: the cost of an event, of a fired deadline and of an
// idle app, as the number of apps grows from 100 to 100,000 (100 apps per realtime device).
// Ratios are against the smallest size, measured in the same run. Run it with
// `Benchmarks/run engine` (release build); `--quick` uses fewer repetitions.

import LifecycleEngine

#if canImport(Glibc)
  import Glibc
#endif

let quick = CommandLine.arguments.contains("--quick")
let sizes = [100, 10_000, 100_000]
let appsPerDevice = 100
let eventsPerRun = quick ? 50_000 : 400_000

/// Resident memory of this process in bytes, from /proc/self/statm.
func residentBytes() -> Int {
  let fd = open("/proc/self/statm", O_RDONLY)
  guard fd >= 0 else { return 0 }
  defer { close(fd) }
  var buffer = [UInt8](repeating: 0, count: 128)
  let count = read(fd, &buffer, buffer.count)
  guard count > 0 else { return 0 }
  let fields = String(decoding: buffer[..<count], as: UTF8.self).split(separator: " ")
  return (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
}

func nanoseconds(_ duration: Duration) -> Double {
  let (seconds, attoseconds) = duration.components
  return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
}

/// An engine with `count` idle apps on realtime devices of 100 apps each, plus a device `hot`
/// with 100 more. With `holdingDeadlines`, every idle app sits in the background with a task
/// that expires in a day, so each device's deadline heap and the realtime heap hold them all.
func populatedEngine(apps count: Int, holdingDeadlines: Bool = false) -> (
  engine: Engine, devices: [String]
) {
  var configuration = EngineConfiguration()
  configuration.limits.maxDevices = count / appsPerDevice + 2
  configuration.limits.maxAppsPerDevice = appsPerDevice
  configuration.limits.journalCapacity = 256
  configuration.scheduler.backgroundTask = .seconds(86_400)
  let engine = Engine(configuration: configuration, now: .zero)
  let devices = (0..<max(1, count / appsPerDevice)).map { "device\($0)" }
  for device in devices + ["hot"] {
    var configuration = engine.configuration.deviceDefaults.configuration(id: device)
    configuration.clock = .realtime
    _ = try! engine.createDevice(configuration, now: .zero)
    for app in 0..<appsPerDevice {
      _ = try! engine.createApp(AppSpec(name: "app\(app)", memoryMB: 30), on: device, now: .zero)
      if holdingDeadlines, device != "hot" {
        _ = try! engine.apply(.launch(), to: "app\(app)", on: device, now: .zero)
        _ = try! engine.apply(.beginBackgroundTask(), to: "app\(app)", on: device, now: .zero)
      }
    }
    if holdingDeadlines, device != "hot" {
      _ = try! engine.apply(DeviceEvent.home, on: device, now: .zero)
    }
  }
  return (engine, devices)
}

/// Nanoseconds per event for a realistic cycle (launch, beginBackgroundTask, home,
/// endBackgroundTask), host time moving 1 ms per event so that suspensions fire along the way.
///
/// `spread` walks every device in turn (each event touches memory the last one did not);
/// otherwise the events go to the 100 apps of device `hot` while the rest of the population
/// holds deadlines, which isolates how the cost depends on n from cache effects.
func measureEvents(apps count: Int, spread: Bool) -> Double {
  let (engine, population) = populatedEngine(apps: count, holdingDeadlines: !spread)
  let devices = spread ? population : ["hot"]
  let apps = (0..<appsPerDevice).map { "app\($0)" }
  var now = Instant.zero
  var step = 0
  var taskID = 0
  let clock = ContinuousClock()
  let elapsed = clock.measure {
    while step < eventsPerRun {
      let cycle = step / 4
      let device = devices[cycle % devices.count]
      let app = apps[(cycle / devices.count) % appsPerDevice]
      now = now + .milliseconds(1)
      switch step % 4 {
      case 0: _ = try! engine.apply(.launch(), to: app, on: device, now: now)
      case 1:
        let outcome = try! engine.apply(.beginBackgroundTask(), to: app, on: device, now: now)
        if case .backgroundTask(let id, _) = outcome.result { taskID = id }
      case 2: _ = try! engine.apply(.home, to: app, on: device, now: now)
      default: _ = try! engine.apply(.endBackgroundTask(id: taskID), to: app, on: device, now: now)
      }
      step += 1
    }
  }
  return nanoseconds(elapsed) / Double(eventsPerRun)
}

/// Nanoseconds per fired deadline when every app's suspension falls due in one advance.
func measureDeadlines(apps count: Int) -> Double {
  let (engine, devices) = populatedEngine(apps: count)
  for device in devices {
    for app in 0..<appsPerDevice {
      _ = try! engine.apply(.launch(), to: "app\(app)", on: device, now: .zero)
    }
    _ = try! engine.apply(DeviceEvent.home, on: device, now: .zero)
  }
  let clock = ContinuousClock()
  var fired = 0
  let elapsed = clock.measure {
    // A device fires the deadlines of one instant together: one activity, a transition each.
    fired = engine.advance(to: .seconds(3600)).reduce(0) { $0 + $1.outcome.transitions.count }
  }
  precondition(fired == count, "every app should suspend once, \(fired) of \(count) did")
  return nanoseconds(elapsed) / Double(fired)
}

/// Resident bytes per idle app (no journal entries yet), for each size.
///
/// Runs first and keeps every engine alive until all are measured: freed memory stays
/// resident and would be reused, hiding the growth.
func measureMemory() -> [Int: Double] {
  var engines = [populatedEngine(apps: appsPerDevice).engine]  // warms the allocator up
  var perApp: [Int: Double] = [:]
  for size in sizes {
    let before = residentBytes()
    engines.append(populatedEngine(apps: size).engine)
    perApp[size] = Double(residentBytes() - before) / Double(size + appsPerDevice)
  }
  withExtendedLifetime(engines) {}
  return perApp
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func format(_ value: Double, _ decimals: Int = 0) -> String {
  var scale = 1.0
  for _ in 0..<decimals { scale *= 10 }
  let rounded = Double(Int(value * scale + 0.5)) / scale
  return decimals == 0 ? String(Int(rounded)) : String(rounded)
}

func pad(_ text: String, _ width: Int) -> String {
  String(repeating: " ", count: max(0, width - text.count)) + text
}

let repetitions = quick ? 1 : 3
print(
  "lifecycle engine, release build, medians of \(repetitions) runs, \(eventsPerRun) events each")
print(
  [
    "apps", "devices", "ns/event hot", "x n=100", "ns/ev spread", "x n=100", "ns/deadline",
    "x n=100", "B/idle app",
  ].map { pad($0, 13) }.joined())
let memoryPerApp = measureMemory()
var baseline: (hot: Double, spread: Double, deadline: Double)?
for size in sizes {
  let hot = median((0..<repetitions).map { _ in measureEvents(apps: size, spread: false) })
  let spread = median((0..<repetitions).map { _ in measureEvents(apps: size, spread: true) })
  let deadline = median((0..<repetitions).map { _ in measureDeadlines(apps: size) })
  let base = baseline ?? (hot, spread, deadline)
  baseline = base
  print(
    [
      String(size), String(max(1, size / appsPerDevice)), format(hot), format(hot / base.hot, 2),
      format(spread), format(spread / base.spread, 2), format(deadline),
      format(deadline / base.deadline, 2), format(memoryPerApp[size]!),
    ].map { pad($0, 13) }.joined())
}
