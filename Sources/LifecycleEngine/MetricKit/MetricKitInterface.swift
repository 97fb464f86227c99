/// The MetricKit interface an app's code takes its reports from: what shape they reach it in.
public enum MetricKitInterface: String, CaseIterable, Sendable {
  /// `MXMetricManager` with an `MXMetricManagerSubscriber` (iOS 13 to 26; deprecated in 27):
  /// `didReceive(_:)` takes every report waiting, one array of each kind.
  case mxMetricManager
  /// `MetricManager` (iOS 27): its `metricReports` and `diagnosticReports` sequences yield
  /// one `MetricReport` or `DiagnosticReport` at a time.
  case metricManager
}
