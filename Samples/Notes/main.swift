// A program whose Core Data model ships as a package resource, as an app's does in its bundle:
// `PersistentContainer(name: "Notes")` finds Notes.xcdatamodeld among the program's resources
// (this target's `resources: [.copy("Notes.xcdatamodeld")]`), with no path in the code.
//
//   swift run notes-sample [STORE]     adds a note to STORE (default: a temporary file) and
//                                      prints how many there are
import Foundation
import Strata

let container = try PersistentContainer(name: "Notes")
let given = CommandLine.arguments.dropFirst().first.map { URL(fileURLWithPath: $0) }
let store = given ?? FileManager.default.temporaryDirectory.appendingPathComponent("notes-sample-\(UUID().uuidString).store")
container.persistentStoreDescriptions = [PersistentStoreDescription(type: .binary, url: store)]
try await container.loadPersistentStores()
let count = try await container.performBackgroundTask { context in
    let note = try context.insertNewObject(forEntityName: "Note")
    try note.setValue("Bought milk", forKey: "text")
    try note.setValue(Date(), forKey: "createdAt")
    try context.save()
    return try context.count(for: FetchRequest<ManagedObject>(entityName: "Note"))
}
print("Model 'Notes' found among the resources; the store holds \(count) note\(count == 1 ? "" : "s")")
if given == nil {
    try await container.persistentStoreCoordinator.removePersistentStore(container.persistentStoreCoordinator.persistentStores[0])
    try FileManager.default.removeItem(at: store)
}
