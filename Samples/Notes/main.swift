// A program whose Core Data model ships as a package resource, as an app's does in its bundle,
// set up both ways Core Data users write it:
//
// 1. `PersistentContainer(name: "Notes")`: the model found among the program's resources (this
//    target's `resources: [.copy("Notes.xcdatamodeld")]`), a SQLite store named after it.
// 2. The manual stack of Core Data's own documentation: the model from its file, a coordinator,
//    `addPersistentStore(type: .sqlite, …)` with the two automatic-migration options, and a
//    main-queue context — on the same file, now at the model's current version.
//
//   swift run notes-sample [STORE]     adds a note to STORE (default: a temporary file) each way
//                                      and prints how many there are
import Foundation
import Strata

let given = CommandLine.arguments.dropFirst().first.map { URL(fileURLWithPath: $0) }
let storeURL = given ?? FileManager.default.temporaryDirectory.appendingPathComponent("notes-sample-\(UUID().uuidString).sqlite")

// 1. The container.
let container = try PersistentContainer(name: "Notes")
container.persistentStoreDescriptions[0].url = storeURL
try await container.loadPersistentStores()
let count = try await container.performBackgroundTask { context in
    let note = try context.insertNewObject(forEntityName: "Note")
    try note.setValue("Bought milk", forKey: "text")
    try note.setValue(Date(), forKey: "createdAt")
    try context.save()
    return try context.count(for: FetchRequest<ManagedObject>(entityName: "Note"))
}
print("Model 'Notes' found among the resources; the \(container.persistentStoreDescriptions[0].type) store holds \(count) note\(count == 1 ? "" : "s")")
try await container.persistentStoreCoordinator.removePersistentStore(container.persistentStoreCoordinator.persistentStores[0])

// 2. The manual stack.
guard let modelURL = Bundle.module.url(forResource: "Notes", withExtension: "xcdatamodeld") else {
    fatalError("Notes.xcdatamodeld is missing from the sample's resources")
}
let model = try ManagedObjectModel(contentsOf: modelURL)
let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
try await coordinator.addPersistentStore(
    type: .sqlite, at: storeURL,
    options: [
        PersistentStoreOption.migratePersistentStoresAutomatically: true,
        PersistentStoreOption.inferMappingModelAutomatically: true,
    ])
let viewContext = ManagedObjectContext(concurrencyType: .mainQueue, persistentStoreCoordinator: coordinator)
let texts = try await viewContext.perform { context in
    let note = try context.insertNewObject(forEntityName: "Note")
    try note.setValue("Called the plumber", forKey: "text")
    try note.setValue(Date(), forKey: "createdAt")
    try context.save()
    var request = FetchRequest<ManagedObject>(entityName: "Note")
    request.sortDescriptors = [.ascending("createdAt")]
    return try context.fetch(request).map { try $0.value(forKey: "text") as? String ?? "" }
}
print("The manual stack opened the same store: \(texts.joined(separator: ", "))")

if given == nil {
    try await coordinator.removePersistentStore(coordinator.persistentStores[0])
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: storeURL.path + suffix) }
}
