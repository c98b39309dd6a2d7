// The child process of the tests that need another process on the same store.
//
// Usage: StoreCrashHelper STORE [binary|sqlite]
//   Saves in a loop until killed (the crash-safety test). Each save n inserts one Item with
//   index n and sets the Counter to n, then prints "saved n". A store that holds exactly the
//   state of one completed save has a Counter k and Items 1…k.
// Usage: StoreCrashHelper STORE sqlite|postgres increment COUNT WORKER [ALL-ITEMS]
//   Adds one to the Counter COUNT times, each in a save of its own that also inserts an Item
//   with index WORKER × 1,000,000 + i and, when i is a multiple of 5, deletes Item i - 1 of its
//   own; a save that meets another process's change refreshes and tries again. Prints
//   "done, N retries" (the many-process tests: no increment may be lost). With ALL-ITEMS, then
//   waits for remote change notifications until the store holds that many Items (every
//   process's saves), and prints "heard all, N notifications".
//
// STORE is a file path, or a postgres:// URL (type postgres).
// Usage: StoreCrashHelper STORE sqlite history COUNT PAUSE-MS
//   With persistent history tracking, as author "writer": COUNT saves, PAUSE-MS apart, save n
//   inserting Item n, setting the Counter to n and, from the second on, deleting Item n - 1.
//   Prints "saved n SECONDS" after each, SECONDS the wall clock when the save returned (the
//   remote-change test measures how long until another process hears of it).
import Foundation
import Strata
import StrataPostgres

let arguments = CommandLine.arguments
guard (2...7).contains(arguments.count) else {
    FileHandle.standardError.write(
        Data("usage: StoreCrashHelper STORE [binary|sqlite|postgres] [increment COUNT WORKER [ALL-ITEMS] | history COUNT PAUSE-MS]\n".utf8))
    exit(2)
}
let model = try CrashModel.make()
PostgresStore.register()
let type: StoreType = switch arguments.count > 2 ? arguments[2] : "binary" {
case "sqlite": .sqlite
case "postgres": .postgreSQL
default: .binary
}
let storeURL = type == .postgreSQL ? URL(string: arguments[1])! : URL(fileURLWithPath: arguments[1])
let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
let tracksHistory = arguments.count == 6 && arguments[3] == "history"
let waitsForAll = arguments.count == 7 ? Int(arguments[6]) : nil
try await coordinator.addPersistentStore(
    type: type, at: storeURL,
    options: [PersistentStoreOption.persistentHistoryTracking: tracksHistory, PersistentStoreOption.remoteChangeNotifications: waitsForAll != nil])
let context = ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator)

if tracksHistory, let count = Int64(arguments[4]), let pause = UInt64(arguments[5]) {
    try await context.perform { $0.transactionAuthor = "writer" }
    for step in 1...count {
        try await context.perform { context in
            let counter = try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter")).first
                ?? context.insertNewObject(forEntityName: "Counter")
            try counter.setValue(step, forKey: "value")
            let item = try context.insertNewObject(forEntityName: "Item")
            try item.setValue(step, forKey: "index")
            var previous = FetchRequest<ManagedObject>(entityName: "Item")
            previous.predicate = try FetchPredicate(format: "index == %lld", step - 1)
            for old in try context.fetch(previous) { context.delete(old) }
            try context.save()
        }
        FileHandle.standardOutput.write(Data("saved \(step) \(Date().timeIntervalSince1970)\n".utf8))
        try await Task.sleep(nanoseconds: pause * 1_000_000)
    }
    exit(0)
}

if arguments.count >= 6, arguments[3] == "increment", let count = Int64(arguments[4]), let worker = Int64(arguments[5]) {
    let notifications = coordinator.remoteChangeNotifications
    let retries = try await context.perform { context in
        var retries = 0
        for step in 1...count {
            while true {
                let counter = try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter")).first
                    ?? context.insertNewObject(forEntityName: "Counter")
                try counter.setValue((try counter.value(forKey: "value") as? Int64 ?? 0) + 1, forKey: "value")
                let item = try context.insertNewObject(forEntityName: "Item")
                try item.setValue(worker * 1_000_000 + step, forKey: "index")
                if step % 5 == 0 {
                    var previous = FetchRequest<ManagedObject>(entityName: "Item")
                    previous.predicate = try FetchPredicate(format: "index == %lld", worker * 1_000_000 + step - 1)
                    for old in try context.fetch(previous) { context.delete(old) }
                }
                do {
                    try context.save()
                    break
                } catch let error as PersistenceError where error.code == .conflict {
                    context.rollback()
                    context.refreshAllObjects()
                    retries += 1
                }
            }
        }
        return retries
    }
    print("done, \(retries) retries")
    if let waitsForAll {
        // Only notifications move this process on: it reads again each time one arrives.
        var heard = 0
        func items() async throws -> Int {
            try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator).perform {
                try $0.count(for: FetchRequest<ManagedObject>(entityName: "Item"))
            }
        }
        if try await items() < waitsForAll {
            for await _ in notifications {
                heard += 1
                if try await items() >= waitsForAll { break }
            }
        }
        print("heard all, \(heard) notifications")
    }
    exit(0)
}

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
