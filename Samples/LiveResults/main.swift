// Live results as another process writes: this program starts a copy of itself as the writer,
// and keeps a fetched results controller and a watched fetch of the notes current as the
// writer's saves arrive (remote change notifications and persistent history, merged by a
// main-queue context), as an app's list (or a server's live query) would.
//
//   swift run live-results-sample            # a store in a temporary folder
//   swift run live-results-sample STORE      # or yours
//
// The writer (the same program, `writer STORE`) saves three notes, then changes one and
// deletes another. The controller's delegate prints each change at its index path; the watched
// fetch prints the result when it has caught up with the writer.
import Foundation
import Strata

let model = try ManagedObjectModel {
    EntityDescription("Note") {
        AttributeDescription("title", .string)
    }
}
let options: [String: any Sendable] = [
    PersistentStoreOption.persistentHistoryTracking: true,
    PersistentStoreOption.remoteChangeNotifications: true,
]
let request = FetchRequest<ManagedObject>(entityName: "Note", sortDescriptors: [.ascending("title")])

/// The writer: a few saves, a pause between them.
func write(to url: URL) async throws {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try await coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
    let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
    for title in ["Milk", "Bread", "Tea"] {
        try await context.perform { context in
            try context.insertNewObject(forEntityName: "Note").setValue(title, forKey: "title")
            try context.save()
        }
        try await Task.sleep(nanoseconds: 200_000_000)
    }
    try await context.perform { context in
        let notes = try context.fetch(request)  // Bread, Milk, Tea
        try notes[1].setValue("Oat milk", forKey: "title")
        context.delete(notes[2])
        try context.save()
    }
}

/// Prints what the controller tells, one line per change.
@MainActor final class Printer {
    var lines = 0
}

extension Printer: @MainActor FetchedResultsControllerDelegate {
    typealias Result = ManagedObject

    func controller(
        _ controller: FetchedResultsController<ManagedObject>, didChange object: ManagedObject, at indexPath: IndexPath?,
        for type: FetchedResultsChangeType, newIndexPath: IndexPath?
    ) {
        let title = (try? object.value(forKey: "title") as? String) ?? "?"
        let place = [indexPath.map { "from \($0.item)" }, newIndexPath.map { "at \($0.item)" }].compactMap { $0 }.joined(separator: " ")
        print("controller: \(type) \(title) \(place)")
        lines += 1
    }
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
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("live-results-sample-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    url = folder.appendingPathComponent("Notes.sqlite")
}

let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
try await coordinator.addPersistentStore(type: .sqlite, at: url, options: options)
let view = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: coordinator)
view.automaticallyMergesChangesFromParent = true
let controller = FetchedResultsController(fetchRequest: request, managedObjectContext: view, sectionNameKeyPath: nil, cacheName: nil)
let printer = Printer()
controller.delegate = printer
try controller.performFetch()

let writer = Process()
writer.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
writer.arguments = ["writer", url.path]
try writer.run()

// The watched fetch: every update, until the result is the writer's last state.
let expected = ["Bread", "Oat milk"]
for try await update in view.changes(of: request) {
    let titles = try await view.perform { view in
        update.snapshot.itemIdentifiers.map { id in (try? view.existingObject(with: id).value(forKey: "title") as? String) ?? nil }
    }
    if titles == expected {
        print("watched: \(titles.compactMap { $0 }.joined(separator: ", ")) (\(update.snapshot.numberOfItems) notes)")
        break
    }
}
writer.waitUntilExit()
let shown = (controller.fetchedObjects ?? []).map { (try? $0.value(forKey: "title") as? String) ?? "?" }
print("controller shows: \(shown.joined(separator: ", "))")
guard writer.terminationStatus == 0, shown == expected else {
    FileHandle.standardError.write(Data("live-results-sample: the controller did not follow the writer\n".utf8))
    exit(1)
}
print("store: \(url.path)")
