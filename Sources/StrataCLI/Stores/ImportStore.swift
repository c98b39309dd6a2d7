import ArgumentParser
import Foundation
import Strata

/// `strata import STORE --model MODEL --from FILE [--history]`: objects from JSON Lines into a
/// new or existing store, in one save: all of them land, or none. With `--history`, the save is
/// recorded in the store's persistent history.
struct ImportStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add objects from JSON Lines (as strata dump writes them) to a store, in one save.")

    @Argument(help: "The store, created when missing: a postgres:// URL, or a file: SQLite when it ends in .sqlite, binary otherwise.")
    var store: String

    @Option(help: "The model (.xcdatamodel) or bundle (.xcdatamodeld, its current version).")
    var model: String

    @Option(help: "The JSON Lines file to read ('-' for standard input).")
    var from: String

    @Flag(help: "Record the import in the store's persistent history (a store that records history needs it).")
    var history = false

    func run() async throws {
        let model = try ModelSource(path: model).model(version: nil).model
        let data: Data
        do {
            data = from == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: from))
        } catch {
            throw CommandFailure("cannot read \(from): \(error.localizedDescription)")
        }
        let records = try ImportRecord.parse(data, model: model, file: from)

        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        let url = try StoreFileKind.url(store)
        if !history, StoreFileKind.isPostgres(url) || FileManager.default.fileExists(atPath: url.path), (try? StoreFileKind.recordsHistory(url)) == true {
            throw CommandFailure("\(store) records persistent history: import with --history, so that the import is recorded too; nothing was imported")
        }
        let options: [String: any Sendable] = history ? [PersistentStoreOption.persistentHistoryTracking: true] : [:]
        let added = try await coordinator.addPersistentStore(type: StoreFileKind(of: url).storeType, at: url, options: options)
        let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
        let result: Result<Int, ImportFailure> = try await context.perform { context in
            do {
                return .success(try ImportRecord.insert(records, into: context, file: from))
            } catch let failure as ImportFailure {
                return .failure(failure)
            } catch {
                return .failure(ImportFailure(line: nil, file: from, message: "\(error)"))
            }
        }
        // An import always leaves a store at the path: with nothing to import, a new store is
        // written empty (an atomic store otherwise writes its file at its first save).
        if case .success = result, let atomic = added as? AtomicStore, atomic.isNewStore {
            try atomic.save()
        }
        try await coordinator.removePersistentStore(added)
        switch result {
        case .success(let count):
            print("imported \(counted(count, "object")) into \(store)")
        case .failure(let failure):
            throw failure
        }
    }
}

/// A bad line of an import, or a save that failed: nothing was written.
struct ImportFailure: Error, CustomStringConvertible {
    let line: Int?
    let file: String
    let message: String

    var description: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(message); nothing was imported"
    }
}
