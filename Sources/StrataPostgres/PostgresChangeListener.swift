import Dispatch
import Logging
import NIOCore
import PostgresNIO
import Strata

/// Hears the saves other servers commit to a store: a connection of its own that `LISTEN`s on
/// the store's channel; each save `NOTIFY`s it with the save's number (`Z_CHANGE`) and the
/// saving store instance's ID.
///
/// Notifications are handed to `onChange` on a queue of the listener's own, never on the event
/// loop (the coordinator's work there waits for statements that need the loop). When the
/// connection goes (the server restarted, the network failed), the listener connects again with
/// a growing pause and then reports the number of the last save committed (read once listening
/// again): whatever was committed while it was deaf is taken in by a new generation.
final class PostgresChangeListener: Sendable {
    enum Event: Sendable {
        /// Save `number` was committed by the store instance `saver`: a notification.
        case notified(Int64, saver: String)
        /// Listening began; `number` is the last save committed before.
        case listening(Int64)
        /// Listening again after the connection was lost; `number` is the last save committed.
        case reconnected(Int64)
    }

    private let channel: String
    /// `SELECT` of the number of the last save committed.
    private let lastChangeSQL: String
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    private let onChange: @Sendable (Event) -> Void
    private let queue = DispatchQueue(label: "strata.postgres.listener")
    private struct State {
        var connection: PostgresConnection?
        var stopped = false
    }
    private let state = ThreadLocked(State())

    init(channel: String, lastChangeSQL: String, configuration: PostgresConnection.Configuration, logger: Logger, onChange: @escaping @Sendable (Event) -> Void) {
        self.channel = channel
        self.lastChangeSQL = lastChangeSQL
        self.configuration = configuration
        self.logger = logger
        self.onChange = onChange
    }

    deinit {
        // A connection must be closed before it goes (postgres-nio asserts it).
        state.withLock { $0.connection.take() }?.closeSoon()
    }

    /// Connects and listens; throws when the server cannot be reached now.
    func start() throws {
        try connect(again: false)
    }

    func stop() {
        let connection = state.withLock { state in
            state.stopped = true
            return state.connection.take()
        }
        connection?.closeSoon()
    }

    private func connect(again: Bool) throws {
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection.connect(
                on: PostgresConnection.defaultEventLoopGroup.any(), configuration: configuration, id: 0, logger: logger
            ).wait()
        } catch {
            throw PostgresSQL.storeError(error, doing: "cannot connect to the server to hear other servers' saves")
        }
        let queue = queue, onChange = onChange
        connection.addListener(channel: channel) { _, notification in
            let parts = notification.payload.split(separator: " ", maxSplits: 1)
            guard let number = parts.first.flatMap({ Int64($0) }) else { return }
            let saver = parts.count > 1 ? String(parts[1]) : ""
            queue.async { onChange(.notified(number, saver: saver)) }
        }
        let lastChange: Int64?
        do {
            try connection.run("LISTEN \(PostgresSQL.quoted(channel))", logger: logger)
            lastChange = try connection.rows(lastChangeSQL, logger: logger).first?.makeRandomAccess()[0].int64()
        } catch {
            connection.closeSoon()
            throw error
        }
        let kept = state.withLock { state in
            guard !state.stopped else { return false }
            state.connection = connection
            return true
        }
        guard kept else {
            connection.closeSoon()
            return
        }
        connection.closeFuture.whenComplete { [weak self] _ in
            guard let self else { return }
            queue.async { self.reconnect(after: .milliseconds(50)) }
        }
        // Saves committed before the LISTEN took hold are heard this way.
        let last = lastChange ?? 0
        queue.async { onChange(again ? .reconnected(last) : .listening(last)) }
    }

    /// Connects again after `pause`, doubling it (to at most 5 s) while the server is away.
    private func reconnect(after pause: DispatchTimeInterval) {
        guard state.withLock({ !$0.stopped }) else { return }
        queue.asyncAfter(deadline: .now() + pause) { [weak self] in
            guard let self, self.state.withLock({ !$0.stopped }) else { return }
            do {
                try self.connect(again: true)
                self.logger.info("listening for other servers' saves again", metadata: ["channel": "\(self.channel)"])
            } catch {
                let next: DispatchTimeInterval
                switch pause {
                case .milliseconds(let ms): next = .milliseconds(min(ms * 2, 5_000))
                default: next = .seconds(5)
                }
                self.logger.warning("cannot listen for other servers' saves: \(error)", metadata: ["channel": "\(self.channel)"])
                self.reconnect(after: next)
            }
        }
    }
}
