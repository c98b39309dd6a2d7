import Foundation

/// Why the PostgreSQL store could not do what it was asked: a bad store URL, a server that is
/// out of reach or went away, an error the server reported, a schema that is not a store's, or
/// a row no store wrote.
///
/// Messages never carry a password (the store takes it from the environment only).
public struct PostgresStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidURL, unreachable, server, notAStore, retriesExhausted, damagedRow
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The store URL is not one the store can use (see ``PostgresStore``).
        public static let invalidURL = Code(.invalidURL)
        /// The server could not be reached, or the connection went away: nothing of the request
        /// was kept, but for a commit whose answer was lost on the way (see docs/PostgresStore.md).
        public static let unreachable = Code(.unreachable)
        /// The server refused a statement; ``PostgresStoreError/sqlState`` says why.
        public static let server = Code(.server)
        /// The schema holds tables, but not a Strata store's.
        public static let notAStore = Code(.notAStore)
        /// A save met serialization failures or deadlocks more times than it retries.
        public static let retriesExhausted = Code(.retriesExhausted)
        /// A row breaks the store's own rules (a relationship to an object of an entity outside
        /// its destination): something other than a store wrote it. The read fails, nothing else.
        public static let damagedRow = Code(.damagedRow)

        public var description: String { base.rawValue }
    }

    public let code: Code
    /// The server's SQLSTATE (`40001`, `23505`…), for errors the server reported.
    public let sqlState: String?
    public let message: String

    public init(_ code: Code, sqlState: String? = nil, _ message: String) {
        self.code = code
        self.sqlState = sqlState
        self.message = message
    }

    public var description: String {
        sqlState.map { "\(message) (SQLSTATE \($0))" } ?? message
    }
}
