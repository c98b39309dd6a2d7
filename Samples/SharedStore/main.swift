// Two processes on one SQLite store: this program starts a copy of itself as the writer, and
// reads what the writer saves as it happens, through remote change notifications and persistent
// history, as an app and its extension (or a server and its tools) would.
//
//   swift run shared-store-sample            # a store in a temporary folder
//   swift run shared-store-sample STORE      # or yours
//
// The writer (the same program, `writer STORE`) saves five notes, changes one and deletes
// another. The reader merges each transaction into a context as it arrives, prints it, and at
// the end deletes the history every reader has seen (here, the only one), as an app should.
import Foundation
import Strata

let model = try ManagedObjectModel {
    EntityDescription("Note") {
        AttributeDescription("title", .string)
        AttributeDescription("body", .string, optional: true)
    }
}
let options: [String: any Sendable] = [
    PersistentStoreOption.persistentHistoryTracking: true,
    PersistentStoreOption.remoteChangeNotifications: true,
]

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("shared-store-sample: \(message)\n".utf8))
    exit(1)
}

/// The writer: a few saves, a pause between them, as the author "writer".
func write(to url: URL) async throws {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try await coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
    let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
    try await context.perform { $0.transactionAuthor = "writer" }
    for number in 1...5 {
        try await context.perform { context in
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue("Note \(number)", forKey: "title")
            try context.save()
        }
        try await Task.sleep(nanoseconds: 100_000_000)
    }
    try await context.perform { context in
        let notes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note", sortDescriptors: [.ascending("title")]))
        try notes[0].setValue("Note 1, edited", forKey: "title")
        context.delete(notes[1])
        try context.save()
    }
}

/// The reader: hears of every save, reads its transaction, merges it into a context.
func read(_ url: URL, writer: Process) async throws {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try await coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
    let view = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
    var token = try coordinator.currentPersistentHistoryToken()
    let changes = coordinator.remoteChangeNotifications
    try writer.run()
    var transactionsSeen = 0
    for await _ in changes {
        let after = token
        let transactions = try await view.perform { view in
            let transactions = try view.execute(.fetchHistory(after: after)).transactions
            for transaction in transactions { view.mergeChanges(from: transaction) }
            return transactions
        }
        for transaction in transactions {
            let summary = transaction.changes.map { "\($0.changeType) \($0.changedObjectID.uriRepresentation().lastPathComponent)" }
            print("transaction \(transaction.transactionNumber) by \(transaction.author ?? "nobody"): \(summary.joined(separator: ", "))")
        }
        token = transactions.last?.token ?? token
        transactionsSeen += transactions.count
        if transactionsSeen == 6 { break }
    }
    writer.waitUntilExit()
    guard writer.terminationStatus == 0 else { fail("the writer failed") }
    let titles = try await view.perform { view in
        try view.fetch(FetchRequest<ManagedObject>(entityName: "Note", sortDescriptors: [.ascending("title")]))
            .map { try $0.value(forKey: "title") as? String ?? "" }
    }
    print("the reader's context now holds: \(titles.joined(separator: "; "))")
    // Every reader has read up to `token`: the history before it can go (the token's own stays).
    if let token, case .deleted(let count) = try await coordinator.execute(.deleteHistory(before: token)) {
        print("deleted \(count) transactions of history, kept transaction \(token.transactionNumbers.values.max() ?? 0) on")
    }
    guard titles == ["Note 1, edited", "Note 3", "Note 4", "Note 5"] else { fail("the reader did not see every save") }
}

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "writer" {
    try await write(to: URL(fileURLWithPath: arguments[2]))
    exit(0)
}
let url: URL
if arguments.count == 2 {
    url = URL(fileURLWithPath: arguments[1])
} else {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shared-store-sample-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    url = folder.appendingPathComponent("Notes.sqlite")
}
let writer = Process()
writer.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
writer.arguments = ["writer", url.path]
try await read(url, writer: writer)
print("store: \(url.path)")
