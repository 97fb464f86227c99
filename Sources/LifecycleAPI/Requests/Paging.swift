import JSONCore
import LifecycleEngine

/// How lists are read: a page holds at most `limit` elements (the `limit` parameter;
/// `Validation.defaultPageSize` unasked, at most `Validation.maxPageSize`) and ends early once
/// its elements pass `maxBytes` of JSON, so that no read holds the loop for long. `hasMore`
/// tells the client to ask again from the page's last element: `since` its `seq`, or `after`
/// its name.
enum Paging {
  /// About a tenth of a millisecond of the loop's time to write and send, the size of the
  /// batches a journal stream is sent in: four clients reading pages of 1 MiB held every other
  /// request up by 4 to 8 ms, pages of 256 KiB by about 2 (Benchmarks/README.md, "Stalls").
  static let maxBytes = 64 << 10
}

extension JSONWriter {
  /// Writes `key` as an array of the first of `elements`, at most `limit` of them and ending
  /// early once past `Paging.maxBytes` (one element always fits), then `hasMore`: whether an
  /// element was left out. Given `limit + 1` elements where more exist, it can tell.
  mutating func page<Elements: Sequence>(
    _ key: StaticString, _ elements: Elements, limit: Int,
    _ element: (inout JSONWriter, Elements.Element) -> Void
  ) {
    self.key(key)
    beginArray()
    let start = position
    var written = 0
    var hasMore = false
    for each in elements {
      guard written < limit, written == 0 || position - start < Paging.maxBytes else {
        hasMore = true
        break
      }
      element(&self, each)
      written += 1
    }
    endArray()
    member("hasMore", hasMore)
  }
}
