// Two app servers on one PostgreSQL database: this program starts two copies of itself, "A" and
// "B", each with its own coordinator and connections, as two machines behind a load balancer
// would be. Each takes orders, hears the other's saves through the store's notifications, and
// shows what it sees; then A ships one of B's orders and B sees that too.
//
//   swift run app-servers-sample postgres://user@host:port/database
//   swift run app-servers-sample            # uses STRATA_POSTGRES_URL
//
// A throwaway server: eval "$(scripts/postgres-server start)". The orders go in a schema of
// their own (app_servers_<random>), which the program drops at the end.
import Foundation
import Strata
import StrataPostgres

let model = try ManagedObjectModel {
    EntityDescription("Order") {
        AttributeDescription("number", .string)
        AttributeDescription("status", .string, defaultValue: "new")
        UniquenessConstraint("number")
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("app-servers-sample: \(message)\n".utf8))
    exit(1)
}

func say(_ server: String, _ line: String) {
    FileHandle.standardOutput.write(Data("[\(server)] \(line)\n".utf8))
}

/// The orders as `context` sees them: "A-1 new", …
func orders(_ context: ManagedObjectContext) async throws -> [String] {
    try await context.perform { context in
        try context.fetch(FetchRequest<ManagedObject>(entityName: "Order", sortDescriptors: [.ascending("number")])).map {
            "\(try $0.value(forKey: "number") as? String ?? "?") \(try $0.value(forKey: "status") as? String ?? "?")"
        }
    }
}

/// One app server: three orders of its own, then it waits to hear the other's.
func serve(as name: String, at url: URL) async throws {
    PostgresStore.register()
    let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
    try await coordinator.addPersistentStore(type: .postgreSQL, at: url, options: [PersistentStoreOption.remoteChangeNotifications: true])
    let heard = coordinator.remoteChangeNotifications
    let other = name == "A" ? "B" : "A"
    // Both servers listen before either takes an order: the parent says go when both are ready.
    say(name, "ready")
    _ = readLine()
    for number in 1...3 {
        try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator).perform { context in
            let order = try context.insertNewObject(forEntityName: "Order")
            try order.setValue("\(name)-\(number)", forKey: "number")
            try context.save()
        }
        say(name, "took order \(name)-\(number)")
        try await Task.sleep(nanoseconds: 150_000_000)
    }
    /// Reads again on each notification (a new context each time: a server's context per request)
    /// until `done` holds; with `readsFirst`, reads once before waiting.
    func waitUntil(readsFirst: Bool = true, _ done: ([String]) -> Bool) async throws -> [String] {
        var seen = try await orders(ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator))
        if readsFirst, done(seen) { return seen }
        for await _ in heard {
            seen = try await orders(ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator))
            say(name, "heard a save by another server; orders now: \(seen.joined(separator: ", "))")
            if done(seen) { return seen }
        }
        fail("\(name) stopped hearing saves")
    }
    // The other server's orders arrive by notification (each server listened before either saved).
    _ = try await waitUntil(readsFirst: false) { $0.count == 6 }
    if name == "A" {
        try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator).perform { context in
            var request = FetchRequest<ManagedObject>(entityName: "Order")
            request.predicate = try FetchPredicate(format: "number == %@", "B-1")
            guard let order = try context.fetch(request).first else { fail("A cannot find B-1") }
            try order.setValue("shipped by A", forKey: "status")
            try context.save()
        }
        say(name, "shipped \(other)-1")
    } else {
        _ = try await waitUntil { $0.contains("B-1 shipped by A") }
        say(name, "sees that A shipped its order B-1")
    }
}

let arguments = CommandLine.arguments
if arguments.count == 4, arguments[1] == "serve", let url = URL(string: arguments[3]) {
    do {
        try await serve(as: arguments[2], at: url)
    } catch {
        fail("server \(arguments[2]): \(error)")
    }
    exit(0)
}
guard let base = arguments.count == 2 ? arguments[1] : ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] else {
    fail("give a postgres:// URL, or set STRATA_POSTGRES_URL (a throwaway server: eval \"$(scripts/postgres-server start)\")")
}
let schema = "app_servers_\(UInt32.random(in: 0...UInt32.max))"
guard let url = URL(string: base + (base.contains("?") ? "&" : "?") + "schema=" + schema) else { fail("not a URL: \(base)") }

/// Relays a server's output as it comes, and counts the servers that said they are ready.
///
/// A thread per pipe reads until the output ends: a `readabilityHandler` that clears itself at
/// the end races the teardown of its dispatch source in swift-corelibs-foundation and now and
/// then crashed this program on Linux (swiftlang/swift-corelibs-foundation#5507 stress-tests
/// that teardown).
final class Relay: Sendable {
    let ready = DispatchSemaphore(value: 0)
    /// Left when a server's output ends.
    let finished = DispatchGroup()
    func attach(_ pipe: Pipe) {
        finished.enter()
        let handle = pipe.fileHandleForReading
        Thread { [ready, finished] in
            while case let data = handle.availableData, !data.isEmpty {
                FileHandle.standardOutput.write(data)
                if String(decoding: data, as: UTF8.self).contains("] ready\n") { ready.signal() }
            }
            finished.leave()
        }.start()
    }
}
let relay = Relay()
let servers = try ["A", "B"].map { name in
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["serve", name, url.absoluteString]
    let output = Pipe()
    relay.attach(output)
    process.standardOutput = output
    process.standardInput = Pipe()
    try process.run()
    // The server has its end now; ours would keep its output from ever ending.
    try output.fileHandleForWriting.close()
    return process
}
for _ in servers { relay.ready.wait() }
for server in servers { (server.standardInput as? Pipe)?.fileHandleForWriting.write(Data("go\n".utf8)) }
for server in servers { server.waitUntilExit() }
relay.finished.wait()
guard servers.allSatisfy({ $0.terminationStatus == 0 }) else { fail("a server failed") }

// Both servers are gone; the store is still there for the next one.
PostgresStore.register()
let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
let store = try await coordinator.addPersistentStore(type: .postgreSQL, at: url)
let final = try await orders(ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator))
print("the database holds: \(final.joined(separator: ", "))")
try await coordinator.removePersistentStore(store)
try PostgresStore.destroyStore(at: url)
print("dropped the schema \(schema)")
