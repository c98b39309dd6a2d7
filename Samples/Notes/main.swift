// A program whose Core Data model ships as a package resource, as an app's does in its bundle, now
// at its second version ("Notes 2": `text` renamed `body` through its renaming identifier, and a
// `title` added), set up the ways Core Data users write it:
//
// 1. The stores the app's previous version left (model version "Notes"): a SQLite store and a
//    binary one, written here when none is there yet.
// 2. The manual stack of Core Data's own documentation: the model from its file, a coordinator,
//    `addPersistentStore(type:at:options:)` with the two automatic-migration options and nothing
//    else, and a main-queue context. Those two options migrate each old store on open.
// 3. `PersistentContainer(name: "Notes")`: the model found among the program's resources (this
//    target's `resources: [.copy("Notes.xcdatamodeld")]`), a SQLite store named after it.
//
//   swift run notes-sample [STORE]     STORE: the SQLite store (default: a temporary file); the
//                                      binary store goes beside it, as STORE with `.store`
import Foundation
import Strata

let given = CommandLine.arguments.dropFirst().first.map { URL(fileURLWithPath: $0) }
let sqliteURL = given ?? FileManager.default.temporaryDirectory.appendingPathComponent("notes-sample-\(UUID().uuidString).sqlite")
let binaryURL = sqliteURL.deletingPathExtension().appendingPathExtension("store")
let stores: [(type: StoreType, url: URL)] = [(.sqlite, sqliteURL), (.binary, binaryURL)]
guard let modelURL = Bundle.module.url(forResource: "Notes", withExtension: "xcdatamodeld") else {
    fatalError("Notes.xcdatamodeld is missing from the sample's resources")
}

// 1. What the previous version of the app left.
let bundle = try ModelBundle(contentsOf: modelURL)
let previous = try bundle.version(named: "Notes").model
for (type, url) in stores where !FileManager.default.fileExists(atPath: url.path) {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: previous)
    let store = try await coordinator.addPersistentStore(type: type, at: url)
    try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator).perform { context in
        let note = try context.insertNewObject(forEntityName: "Note")
        try note.setValue("Bought milk", forKey: "text")
        try note.setValue(Date(), forKey: "createdAt")
        try context.save()
    }
    try await coordinator.removePersistentStore(store)
    print("The app's previous version left a \(type) store with a note")
}

// 2. The manual stack: the two options migrate each store to the model's current version.
let model = try ManagedObjectModel(contentsOf: modelURL)
for (type, url) in stores {
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    let store = try await coordinator.addPersistentStore(
        type: type, at: url,
        options: [
            PersistentStoreOption.migratePersistentStoresAutomatically: true,
            PersistentStoreOption.inferMappingModelAutomatically: true,
        ])
    let viewContext = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: coordinator)
    let bodies = try await viewContext.perform { context in
        let note = try context.insertNewObject(forEntityName: "Note")
        try note.setValue("Called the plumber", forKey: "body")
        try note.setValue("Errands", forKey: "title")
        try note.setValue(Date(), forKey: "createdAt")
        try context.save()
        var request = FetchRequest<ManagedObject>(entityName: "Note")
        request.sortDescriptors = [.ascending("createdAt")]
        return try context.fetch(request).map { try $0.value(forKey: "body") as? String ?? "" }
    }
    print("The manual stack opened the \(type) store at version '\(bundle.currentVersion.name)': \(bodies.joined(separator: ", "))")
    try await coordinator.removePersistentStore(store)
}

// 3. The container, on the SQLite store.
let container = try PersistentContainer(name: "Notes")
container.persistentStoreDescriptions[0].url = sqliteURL
try await container.loadPersistentStores()
let count = try await container.performBackgroundTask { context in
    try context.count(for: FetchRequest<ManagedObject>(entityName: "Note"))
}
print("Model 'Notes' found among the resources; the \(container.persistentStoreDescriptions[0].type) store holds \(count) note\(count == 1 ? "" : "s")")

if given == nil {
    try await container.persistentStoreCoordinator.removePersistentStore(container.persistentStoreCoordinator.persistentStores[0])
    for path in [sqliteURL.path, sqliteURL.path + "-wal", sqliteURL.path + "-shm", binaryURL.path] { try? FileManager.default.removeItem(atPath: path) }
}
