import ArgumentParser
import Foundation
import Strata

/// `strata history STORE [--after TOKEN] [--json]`: the transactions a store's persistent
/// history holds, oldest first.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List the transactions of a store's persistent history.",
        discussion: """
            A transaction's token is printed as STORE-UUID:NUMBER; give it (or the number alone) to \
            --after to list only what came later.
            """)

    @Argument(help: "A store that records persistent history: a file (binary or SQLite), or a postgres:// URL.")
    var store: String

    @Option(help: "Only the transactions after this token (STORE-UUID:NUMBER, or NUMBER).")
    var after: String?

    @Flag(help: "One JSON object per transaction and line: token, timestamp, author, changes.")
    var json = false

    @Option(help: "The model (.xcdatamodel or .xcdatamodeld); by default, the one the store carries.")
    var model: String?

    func run() async throws {
        let url = try StoreFileKind.url(store)
        let model = try StoreFileKind.model(for: url, given: model)
        let (coordinator, added) = try await StoreFileKind.openReadOnly(url, model: model, history: true)
        let token = try after.map { try Self.token($0, store: added.identifier) }
        let result: Result<[PersistentHistoryTransaction], any Error>
        do {
            result = .success(try await coordinator.execute(.fetchHistory(after: token)).transactions)
        } catch {
            result = .failure(error)
        }
        try await coordinator.removePersistentStore(added)
        let transactions = try result.get()
        for transaction in transactions {
            print(json ? try Self.jsonLine(transaction) : Self.text(transaction))
        }
        if !json, transactions.isEmpty { print(after == nil ? "no history" : "no history after \(after ?? "")") }
    }

    /// A token as the command prints it (`UUID:NUMBER`), or a transaction number of `store`.
    static func token(_ text: String, store: String) throws -> PersistentHistoryToken {
        if let number = Int64(text) { return PersistentHistoryToken(storeIdentifier: store, transactionNumber: number) }
        let parts = text.split(separator: ",").map { part -> (String, Int64)? in
            guard let colon = part.lastIndex(of: ":"), let number = Int64(part[part.index(after: colon)...]) else { return nil }
            return (String(part[..<colon]), number)
        }
        guard !parts.isEmpty, parts.allSatisfy({ $0 != nil }) else {
            throw CommandFailure("'\(text)' is not a history token: give STORE-UUID:NUMBER, as strata history prints, or a number")
        }
        return PersistentHistoryToken(transactionNumbers: Dictionary(parts.compactMap { $0 }, uniquingKeysWith: { _, last in last }))
    }

    static func text(_ transaction: PersistentHistoryTransaction) -> String {
        var header = "transaction \(transaction.token)  \(timestamp(transaction.timestamp))"
        if let author = transaction.author { header += "  author \(author)" }
        if let context = transaction.contextName { header += "  context \(context)" }
        if let process = transaction.processID { header += "  process \(process)" }
        header += "  \(counted(transaction.changes.count, "change"))"
        let lines = transaction.changes.map { change in
            var line = "  \(change.changeType.name) \(change.changedObjectID.uriRepresentation().absoluteString)"
            if let properties = change.updatedProperties { line += " " + properties.sorted().joined(separator: ", ") }
            return line
        }
        return ([header] + lines).joined(separator: "\n")
    }

    static func jsonLine(_ transaction: PersistentHistoryTransaction) throws -> String {
        var line: [String: Any] = [
            "token": transaction.token.description, "number": transaction.transactionNumber,
            "timestamp": timestamp(transaction.timestamp),
            "changes": transaction.changes.map { change -> [String: Any] in
                var object: [String: Any] = [
                    "id": change.changedObjectID.uriRepresentation().absoluteString, "type": change.changeType.name,
                ]
                if let properties = change.updatedProperties { object["properties"] = properties.sorted() }
                if let tombstone = change.tombstone { object["tombstone"] = tombstone.mapValues(\.jsonObject) }
                return object
            },
        ]
        if let author = transaction.author { line["author"] = author }
        if let context = transaction.contextName { line["context"] = context }
        if let process = transaction.processID { line["process"] = process }
        return String(decoding: try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}

extension PersistentHistoryChange.ChangeType {
    /// The word the command prints for it.
    var name: String {
        switch self {
        case .insert: "insert"
        case .update: "update"
        case .delete: "delete"
        }
    }
}
