/// A response status: code and reason phrase.
public struct HTTPStatus: Hashable, Sendable {
  public var code: Int
  /// Static text: every response carries its status, which costs it no reference counting.
  public var reason: StaticString

  public init(_ code: Int, _ reason: StaticString) {
    self.code = code
    self.reason = reason
  }

  /// The reason phrase's bytes.
  var reasonBytes: UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: reason.utf8Start, count: reason.utf8CodeUnitCount)
  }

  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.code == rhs.code && lhs.reasonBytes.elementsEqual(rhs.reasonBytes)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(code)
    hasher.combine(bytes: UnsafeRawBufferPointer(reasonBytes))
  }

  public static let ok = HTTPStatus(200, "OK")
  public static let created = HTTPStatus(201, "Created")
  public static let noContent = HTTPStatus(204, "No Content")
  public static let badRequest = HTTPStatus(400, "Bad Request")
  public static let unauthorized = HTTPStatus(401, "Unauthorized")
  public static let forbidden = HTTPStatus(403, "Forbidden")
  public static let notFound = HTTPStatus(404, "Not Found")
  public static let methodNotAllowed = HTTPStatus(405, "Method Not Allowed")
  public static let requestTimeout = HTTPStatus(408, "Request Timeout")
  public static let conflict = HTTPStatus(409, "Conflict")
  public static let preconditionFailed = HTTPStatus(412, "Precondition Failed")
  public static let contentTooLarge = HTTPStatus(413, "Content Too Large")
  public static let uriTooLong = HTTPStatus(414, "URI Too Long")
  public static let unsupportedMediaType = HTTPStatus(415, "Unsupported Media Type")
  public static let expectationFailed = HTTPStatus(417, "Expectation Failed")
  public static let misdirectedRequest = HTTPStatus(421, "Misdirected Request")
  public static let unprocessableContent = HTTPStatus(422, "Unprocessable Content")
  public static let requestHeaderFieldsTooLarge = HTTPStatus(431, "Request Header Fields Too Large")
  public static let internalServerError = HTTPStatus(500, "Internal Server Error")
  public static let notImplemented = HTTPStatus(501, "Not Implemented")
  public static let serviceUnavailable = HTTPStatus(503, "Service Unavailable")
  public static let httpVersionNotSupported = HTTPStatus(505, "HTTP Version Not Supported")
  /// RFC 4918 §11.5: the server cannot store what the request needs (its memory budget).
  public static let insufficientStorage = HTTPStatus(507, "Insufficient Storage")

  /// The status for `code`, with its reason phrase when it is one of those above; with none
  /// otherwise, which RFC 9112 §4 allows (a client ignores it).
  public init(code: Int) {
    self = Self.known.first { $0.code == code } ?? HTTPStatus(code, "")
  }

  private static let known: [HTTPStatus] = [
    .ok, .created, .noContent, .badRequest, .unauthorized, .forbidden, .notFound,
    .methodNotAllowed, .requestTimeout, .conflict, .preconditionFailed, .contentTooLarge,
    .uriTooLong, .unsupportedMediaType, .expectationFailed, .misdirectedRequest,
    .unprocessableContent, .requestHeaderFieldsTooLarge, .internalServerError, .notImplemented,
    .serviceUnavailable, .httpVersionNotSupported, .insufficientStorage,
  ]

  /// Whether a response with this status never carries content (RFC 9110 §6.4.1).
  var forbidsContent: Bool { code < 200 || code == 204 || code == 304 }
}
