/// One JSON value already encoded: what a problem document carries in its extension members.
public struct JSONText: Sendable {
  public let bytes: [UInt8]

  @inlinable
  public init(_ write: (inout JSONWriter) -> Void) {
    bytes = JSONWriter.encode(capacity: 64, write)
  }

  public init(_ value: JSON) {
    self.init { $0.value(value) }
  }

  /// The array whose elements, commas included, are `elements`.
  public init(array elements: [UInt8]) {
    bytes = [UInt8(ascii: "[")] + elements + [UInt8(ascii: "]")]
  }
}

extension JSONWriter {
  /// An RFC 9457 problem details document: `type`, `title`, `status` and `detail`, then the
  /// extension members `extensions` holds, each already encoded.
  public static func problem(
    type: String, title: String, status: Int, detail: String,
    extensions: [(String, JSONText)] = []
  ) -> [UInt8] {
    encode { w in
      w.object { w in
        w.member("type", type)
        w.member("title", title)
        w.member("status", status)
        w.member("detail", detail)
        for (name, value) in extensions {
          w.key(escaping: name)
          w.encoded(value)
        }
      }
    }
  }
}
