import Foundation

/// One save as persistent history recorded it, with every change it made to the store (Core
/// Data's `NSPersistentHistoryTransaction`).
public struct PersistentHistoryTransaction: Sendable, Hashable {
    /// The transaction's number in its store: counts up from 1, never reused.
    public let transactionNumber: Int64
    /// The identifier (UUID) of the store the save wrote.
    public let storeID: String
    /// When the save was written (the writer's clock: order transactions by number, not by time).
    public let timestamp: Date
    /// The saving context's ``ManagedObjectContext/transactionAuthor``.
    public let author: String?
    /// The saving context's ``ManagedObjectContext/name``.
    public let contextName: String?
    /// The bundle identifier of the saving program, where it has one (Core Data's apps do).
    public let bundleID: String?
    /// The name of the saving process (Core Data records the name, not the number).
    public let processID: String?
    /// The changes, in the order the store recorded them.
    public let changes: [PersistentHistoryChange]

    /// This transaction's place in history: ask for the history after it to read what came next.
    public var token: PersistentHistoryToken {
        PersistentHistoryToken(storeIdentifier: storeID, transactionNumber: transactionNumber)
    }

    public init(
        transactionNumber: Int64, storeID: String, timestamp: Date, author: String?, contextName: String?, bundleID: String?,
        processID: String?, changes: [PersistentHistoryChange]
    ) {
        self.transactionNumber = transactionNumber
        self.storeID = storeID
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.bundleID = bundleID
        self.processID = processID
        self.changes = changes
    }
}
