// Saves a binary store in a loop until killed: the child process of the crash-safety test.
//
// Usage: StoreCrashHelper STORE
// Each save n inserts one Item with index n and sets the Counter to n, then prints "saved n".
// A store that holds exactly the state of one completed save has a Counter k and Items 1…k.
import Foundation
import Strata

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: StoreCrashHelper STORE\n".utf8))
    exit(2)
}
let model = try CrashModel.make()
let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
try await coordinator.addPersistentStore(type: .binary, at: URL(fileURLWithPath: arguments[1]))
let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)
try await context.perform { context in
    let counters = try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter"))
    let counter = try counters.first ?? {
        let counter = try context.insertNewObject(forEntityName: "Counter")
        // Ballast, so that each save takes long enough to be interrupted.
        for index in 0..<20_000 {
            let filler = try context.insertNewObject(forEntityName: "Filler")
            try filler.setValue("filler \(index) with some text to compress", forKey: "text")
        }
        return counter
    }()
    var next = (try counter.value(forKey: "value") as? Int64 ?? 0) + 1
    while true {
        let item = try context.insertNewObject(forEntityName: "Item")
        try item.setValue(next, forKey: "index")
        try counter.setValue(next, forKey: "value")
        try context.save()
        // Unbuffered, so that the parent sees every save that completed before the kill.
        FileHandle.standardOutput.write(Data("saved \(next)\n".utf8))
        next += 1
    }
}
