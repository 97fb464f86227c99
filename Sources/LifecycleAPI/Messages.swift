import JSONCore
import LifecycleEngine

/// A request as the API sees it: no framing, no connection, only what routing and decoding use.
public struct APIRequest: Sendable {
  public var method: String
  /// The path without its query, such as `/v1/devices/ci-1/apps`.
  public var path: Substring
  /// The raw query after `?`, if any.
  public var query: Substring?
  /// The body's media type, `type/subtype` in lowercase without parameters (as
  /// `HTTPFields.mediaType` reads `Content-Type`), if sent.
  public var mediaType: String?
  public var body: [UInt8]
  /// `Host`, for the `AccessPolicy`.
  public var host: String?
  /// Whether the request has more than one `Origin` (RFC 6454, 7.2: a browser sends one at
  /// most), which the policy refuses whatever they say.
  public var originIsRepeated: Bool
  /// The fields few requests send. The server leaves it nil for a request that sends none of
  /// them, as nearly every request of a harness does: held in one optional, they cost such a
  /// request nothing to drop, where five optional texts were each released on every request.
  /// An empty value reads the same (`origin` and the others are nil), as the in-process
  /// transport passes for every request.
  public var occasionalFields: OccasionalFields?
  /// The request's number on the server: a request that waits is answered under it later
  /// (`LifecycleAPI.takeLateResponses`).
  public var exchange: UInt64
}

/// The request fields the API reads that few requests send.
public struct OccasionalFields: Sendable {
  /// The first `Origin`, for the `AccessPolicy`.
  public var origin: String?
  /// `Authorization`, for the `AccessPolicy`.
  public var authorization: String?
  /// `If-Match`: the request applies only to the device in one of these versions.
  public var ifMatch: String?
  /// `Idempotency-Key`: a retry of this request gets the first one's response.
  public var idempotencyKey: String?
  /// `Last-Event-ID`: a journal stream's client reconnects after this seq.
  public var lastEventID: String?

  public init(
    origin: String? = nil, authorization: String? = nil, ifMatch: String? = nil,
    idempotencyKey: String? = nil, lastEventID: String? = nil
  ) {
    self.origin = origin
    self.authorization = authorization
    self.ifMatch = ifMatch
    self.idempotencyKey = idempotencyKey
    self.lastEventID = lastEventID
  }
}

extension APIRequest {
  /// Made through the memberwise initializer, which builds the value in one piece: an
  /// initializer that assigns the fields one by one here made the optimizer copy the whole
  /// request and drop the original (a retain and a release of every field, on every request).
  public init(
    method: String, path: Substring, query: Substring? = nil, mediaType: String? = nil,
    body: [UInt8] = [], host: String? = nil, occasionalFields: OccasionalFields? = nil,
    exchange: UInt64 = 0
  ) {
    self.init(
      method: method, path: path, query: query, mediaType: mediaType, body: body, host: host,
      originIsRepeated: false, occasionalFields: occasionalFields, exchange: exchange)
  }

  /// The first `Origin`, if the request sends one.
  public var origin: String? { occasionalFields?.origin }
  /// `Authorization`, if sent.
  public var authorization: String? { occasionalFields?.authorization }
  /// `If-Match`, if sent.
  public var ifMatch: String? { occasionalFields?.ifMatch }
  /// `Idempotency-Key`, if sent.
  public var idempotencyKey: String? { occasionalFields?.idempotencyKey }
  /// `Last-Event-ID`, if sent.
  public var lastEventID: String? { occasionalFields?.lastEventID }
}

/// A response as the API produces it; the HTTP layer adds the framing.
public struct APIResponse: Sendable {
  public var status: Int
  public var contentType: String
  /// Fields the response needs besides its content type, such as `Allow` on a 405 or
  /// `Location` on a 201.
  public var headers: [(name: String, value: String)]
  public var body: [UInt8]
  /// The version of the device the response is about, which its `ETag` names
  /// (`entityTag`). Apart from `headers` because nearly every response has one, and an array
  /// of fields for each would cost an allocation; a number pair because the server writes the
  /// tag straight into the response's head (`LifecycleAPI.withEntityTag`).
  public var version: DeviceVersion?

  public init(
    status: Int, contentType: String, headers: [(name: String, value: String)] = [],
    body: [UInt8]
  ) {
    self.status = status
    self.contentType = contentType
    self.headers = headers
    self.body = body
  }

  /// The `ETag` of the device the response is about (`version`).
  public var entityTag: String? { version.map(LifecycleAPI.entityTag) }

  /// The `Content-Type` the response is sent with: none for an empty body, but a stream's,
  /// whose pieces come later.
  public var sentContentType: String? {
    body.isEmpty && contentType != "text/event-stream" ? nil : contentType
  }

  /// 204: done, nothing to say.
  static let noContent = APIResponse(status: 204, contentType: "application/json", body: [])

  /// No answer yet: the request waits (`Waits`).
  static let deferred = APIResponse(status: 0, contentType: "", body: [])

  var isDeferred: Bool { status == 0 }
}

/// An answer, or a part of one, to a request that waited (`Waits`) or streams (`Streams`).
public struct LateAnswer: Sendable {
  /// The request's number, from `APIRequest.exchange`.
  public var exchange: UInt64
  public var part: Part

  /// The whole response, or a stream's head, one of its pieces, or its end.
  public enum Part: Sendable {
    case response(APIResponse)
    /// The stream's response, whose body is its first piece; what it sends after
    /// `heartbeatMilliseconds` of quiet; what it sends last to a client that fell behind.
    case streamHead(
      APIResponse, heartbeat: [UInt8], heartbeatMilliseconds: Int64, farewell: [UInt8])
    case streamPiece([UInt8])
    case streamEnd
  }
}
