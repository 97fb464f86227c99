import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

@testable import LifecycledClient

/// The journal stream resumes where a dropped connection left it, with `Last-Event-ID`: no
/// entry missed, none repeated.
@Suite(.liveServer) struct JournalStreamTests {
  @Test func aDroppedStreamResumesAfterItsLastEvent() async throws {
    let server = try #require(LifecycledServer.current)
    let transport = DroppingTransport(
      wrapping: server.transport ?? Lifecycled.defaultTransport, after: 700)
    let lifecycled = Lifecycled(serverURL: server.url, transport: transport)
    let device = try await lifecycled.createDevice()
    let mail = try await device.createApp("mail")
    let last = try await mail.post([.launch(), .home, .launch(), .home]).last!.lastSeq

    var seqs: [Int] = []
    for try await event in try await device.journalStream() {
      guard case .entry(let entry) = event else { continue }
      seqs.append(entry.seq)
      if entry.seq == last { break }
    }
    #expect(seqs == Array(1...last))
    let resumedAfter = try #require(transport.lastEventIDs.last ?? nil)
    #expect(transport.lastEventIDs.count == 2)
    #expect(transport.lastEventIDs.first == .some(nil))
    let resumedSeq = Int(resumedAfter.split(separator: "-").last!)!
    #expect((1..<last).contains(resumedSeq), "the first connection ended mid-journal")
  }

  /// `.latest` is the journal's end when the stream is made: the events posted before the
  /// iteration starts are streamed.
  @Test func latestIsFixedWhenTheStreamIsMade() async throws {
    let device = try await LiveServer.lifecycled.createDevice()
    let mail = try await device.createApp("mail")
    try await mail.post(.launch())
    let stream = try await device.journalStream(since: .latest, kind: .event)
    let home = try await mail.post(.home)
    try await mail.post(.launch())  // what a stream made at the iteration would start with
    for try await event in stream {
      guard case .entry(.event(let entry)) = event else { continue }
      #expect(entry.seq == home.lastSeq - 4)  // the event, then its 2 callbacks, 2 transitions
      break
    }
  }
}

extension Components.Schemas.JournalEntry {
  /// The entry's position in the journal.
  var seq: Int {
    switch self {
    case .event(let entry): entry.seq
    case .callback(let entry): entry.callback.seq
    case .transition(let entry): entry.transition.seq
    }
  }
}

/// What the transport throws where it breaks a stream off.
struct ConnectionDropped: Error {}

/// A transport whose first journal stream's body breaks off after `limit` bytes, as a dropped
/// connection would; each stream request's `Last-Event-ID` is noted.
final class DroppingTransport: ClientTransport, @unchecked Sendable {  // requests under `lock`
  private let transport: any ClientTransport
  private let limit: Int
  private let lock = NSLock()
  private var streamRequests: [String?] = []

  init(wrapping transport: any ClientTransport, after limit: Int) {
    self.transport = transport
    self.limit = limit
  }

  /// Each stream request's `Last-Event-ID`, in order (nil: it had none).
  var lastEventIDs: [String?] { lock.withLock { streamRequests } }

  func send(
    _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
  ) async throws -> (HTTPResponse, HTTPBody?) {
    let (response, responseBody) = try await transport.send(
      request, body: body, baseURL: baseURL, operationID: operationID)
    guard operationID == "streamJournal", let responseBody else { return (response, responseBody) }
    let isFirst = lock.withLock {
      streamRequests.append(request.headerFields[HTTPField.Name("Last-Event-ID")!])
      return streamRequests.count == 1
    }
    guard isFirst else { return (response, responseBody) }
    let limit = self.limit
    let cut = AsyncThrowingStream<ArraySlice<UInt8>, any Error> { continuation in
      let reader = Task {
        var passed = 0
        do {
          for try await chunk in responseBody {
            let room = limit - passed
            continuation.yield(chunk.prefix(room))
            passed += min(room, chunk.count)
            if passed >= limit { break }
          }
          continuation.finish(throwing: ConnectionDropped())
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in reader.cancel() }
    }
    return (response, HTTPBody(cut, length: .unknown, iterationBehavior: .single))
  }
}
