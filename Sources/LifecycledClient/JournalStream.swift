import Foundation
import OpenAPIRuntime

/// A device's journal as it happens (`GET .../journal/stream`, Server-Sent Events): its entries
/// after a position, then each new one as the device records it.
///
/// ```swift
/// for try await event in try await device.journalStream(since: .latest, kind: .transition) {
///   guard case .entry(.transition(let entry)) = event else { continue }
///   if entry.transition.to == .suspended { break }
/// }
/// ```
///
/// When the server ends the stream because it was read too slowly, or the connection drops
/// after events came, it resumes with `Last-Event-ID`, after the last event received: no entry
/// is missed or repeated. It finishes when the server ends it otherwise (the device reset,
/// replaced or removed, the server stopping); it throws if a connection fails before any event.
public struct JournalStream: AsyncSequence, Sendable {
  /// One event of the stream.
  public enum Event: Sendable, Hashable {
    case entry(Components.Schemas.JournalEntry)
    /// Entries left the bounded journal before they could be sent (or the position was of an
    /// earlier incarnation of the device): the stream goes on after `resumesAfter`.
    case dropped(Components.Schemas.JournalGap)
  }

  let device: SimulatedDevice
  let since: JournalPosition
  let kind: Components.Schemas.JournalEntryKind?
  let app: String?

  public func makeAsyncIterator() -> Iterator {
    Iterator(stream: self)
  }

  /// Reads the stream's events, connecting again where the server or the network broke off.
  public struct Iterator: AsyncIteratorProtocol {
    private typealias Events = ServerSentEventsDeserializationSequence<
      ServerSentEventsLineDeserializationSequence<HTTPBody>
    >

    private let stream: JournalStream
    private var events: Events.AsyncIterator?
    /// The `id` of the last event received, where a new connection resumes.
    private var lastEventID: String?
    /// Whether an event came on the current connection.
    private var progressed = false
    private var finished = false

    init(stream: JournalStream) {
      self.stream = stream
    }

    /// The next entry, or the end of the stream.
    ///
    /// - Returns: The next event; nil once the server ended the stream (the device was
    ///   reset or removed, the stream timed out, the server is shutting down) or a new
    ///   connection closed with no event. A stream that fell behind resumes by itself.
    /// - Throws: A ``LifecycledProblem`` the server answered with, a decoding error, or the
    ///   transport's error when no event came on the connection.
    public mutating func next() async throws -> Event? {
      while !finished {
        if events == nil {
          events = try await connect()
          progressed = false
        }
        let received: ServerSentEvent?
        do {
          received = try await events?.next()
        } catch let error where progressed && !(error is CancellationError) {
          events = nil  // the connection dropped: resume after the last event
          continue
        }
        guard let received else {
          // Closed without an `end` event: resume if it carried events, else stop.
          events = nil
          finished = !progressed
          continue
        }
        progressed = true
        if let id = received.id { lastEventID = id }
        let data = Data((received.data ?? "").utf8)
        switch received.event {
        case nil, "message":
          return .entry(try JSONDecoder().decode(Components.Schemas.JournalEntry.self, from: data))
        case "dropped":
          return .dropped(try JSONDecoder().decode(Components.Schemas.JournalGap.self, from: data))
        case "end":
          let end = try JSONDecoder().decode(Components.Schemas.JournalStreamEnd.self, from: data)
          events = nil
          finished = end.reason != .behind
        default:
          continue  // an event type of a later server
        }
      }
      return nil
    }

    private func connect() async throws -> Events.AsyncIterator {
      let stream = self.stream
      let query = Operations.StreamJournal.Input.Query(
        since: lastEventID == nil ? stream.since.parameter : nil, kind: stream.kind,
        app: stream.app)
      let answer = try await stream.device.lifecycled.send { [lastEventID] in
        try await $0.streamJournal(
          path: .init(device: stream.device.id), query: query,
          headers: .init(lastEventID: lastEventID))
      }
      return try answer.ok.body.textEventStream.asDecodedServerSentEvents().makeAsyncIterator()
    }
  }
}
