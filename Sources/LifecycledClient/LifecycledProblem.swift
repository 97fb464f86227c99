import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A request the server refused: its status and its problem details (RFC 9457), such as a
/// 409 `event-refused` with the events the app allows in its state, or a 422 naming each field.
public struct LifecycledProblem: Error, Sendable, Hashable, CustomStringConvertible {
  /// The HTTP status, 400 to 599.
  public let status: Int
  /// The problem type, such as `urn:lifecycled:problem:event-refused`.
  public let type: String
  public let title: String
  public let detail: String
  /// For a refused event, the app's or device's state.
  public let currentState: String?
  /// For a refused event, the events the state allows.
  public let allowedEvents: [String]
  /// For a 422, each field and what is wrong with it.
  public let validation: [Field]

  /// One field of a refused body, by its path (`behavior.didEnterBackgroundSeconds`, `[2].type`).
  public struct Field: Sendable, Hashable, Decodable {
    public let field: String
    public let message: String
  }

  public var description: String { "\(status) \(type): \(detail)" }
}

extension LifecycledProblem: Decodable {
  private enum CodingKeys: String, CodingKey {
    case status, type, title, detail, currentState, allowedEvents, validation
  }

  public init(from decoder: any Decoder) throws {
    let members = try decoder.container(keyedBy: CodingKeys.self)
    status = try members.decode(Int.self, forKey: .status)
    type = try members.decode(String.self, forKey: .type)
    title = try members.decode(String.self, forKey: .title)
    detail = try members.decode(String.self, forKey: .detail)
    currentState = try members.decodeIfPresent(String.self, forKey: .currentState)
    allowedEvents = try members.decodeIfPresent([String].self, forKey: .allowedEvents) ?? []
    validation = try members.decodeIfPresent([Field].self, forKey: .validation) ?? []
  }
}

/// Throws a response the server refused (4xx, 5xx) as its ``LifecycledProblem``, before the
/// generated client turns it into one of each operation's own cases.
struct ProblemMiddleware: ClientMiddleware {
  /// Problem bodies are small; a larger one is not a problem body.
  static let maxBodyBytes = 64 * 1024

  func intercept(
    _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
    next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
  ) async throws -> (HTTPResponse, HTTPBody?) {
    let (response, responseBody) = try await next(request, body, baseURL)
    guard response.status.kind == .clientError || response.status.kind == .serverError,
      let responseBody
    else { return (response, responseBody) }
    let bytes = try await Data(collecting: responseBody, upTo: Self.maxBodyBytes)
    if let problem = try? JSONDecoder().decode(LifecycledProblem.self, from: bytes) {
      throw problem
    }
    // Not the server's problem body (a proxy's answer, say): the status says what it can.
    throw LifecycledProblem(
      status: response.status.code, type: "about:blank", title: response.status.reasonPhrase,
      detail: String(decoding: bytes, as: UTF8.self), currentState: nil, allowedEvents: [],
      validation: [])
  }
}
