// The Strata demo: a small library catalogue, run through the whole stack.
//
// It defines a model in Swift, opens a container on its store file (SQLite, Core Data's format,
// as a container's default; a path ending in .store makes it Strata's binary store), imports an embedded
// catalogue from four background contexts at once, reads it from the main-queue context,
// resolves an object URI, shows a save conflict being caught and merged, deletes with a
// cascade rule, and reopens the file in a new container to show that everything was saved.
//
// Usage: strata-demo [STORE]   (default: a new folder under the temporary directory)
import Foundation
import Strata

let storeURL = CommandLine.arguments.count > 1
    ? URL(fileURLWithPath: CommandLine.arguments[1])
    : FileManager.default.temporaryDirectory.appendingPathComponent("strata-demo-\(UUID().uuidString)/Library.sqlite")
let storeType: StoreType = storeURL.pathExtension == "store" ? .binary : .sqlite
let model = try LibraryModel.make()
let container = PersistentContainer(name: "Library", managedObjectModel: model)
container.persistentStoreDescriptions = [PersistentStoreDescription(type: storeType, url: storeURL)]
let stores = try await container.loadPersistentStores()
print("Opened \(stores.map(\.description).joined(separator: ", "))")

// 1. Four background contexts import one author each, at the same time.
let imported = try await withThrowingTaskGroup(of: Int.self) { group in
    for entry in LibraryModel.catalogue {
        group.addTask {
            try await container.performBackgroundTask { context in
                let author = try Author(context: context)
                author.name = entry.author
                author.born = entry.born
                for (title, year) in entry.books {
                    let book = try Book(context: context)
                    book.title = title
                    book.year = year
                    book.author = author
                }
                try context.save()
                return entry.books.count + 1
            }
        }
    }
    var total = 0
    for try await count in group { total += count }
    return total
}
print("Imported \(imported) objects from \(LibraryModel.catalogue.count) background contexts")

// 2. The main-queue context reads the catalogue, sorted.
let listing = try await container.viewContext.perform { context in
    var request = FetchRequest<Book>()
    request.sortDescriptors = [.ascending("year"), .ascending("title")]
    return try context.fetch(request).map { "  \($0.year)  \($0.title) — \($0.author?.name ?? "anonymous")" }
}
print("The catalogue, by year:")
listing.forEach { print($0) }

// 3. Object URIs stay valid: turn one back into the object.
let emmaURI = try await container.viewContext.perform { context in
    var request = FetchRequest<Book>()
    request.sortDescriptors = [.ascending("title")]
    return try require(try context.fetch(request).first { $0.title == "Emma" }).objectID.uriRepresentation()
}
let emmaID = try require(container.persistentStoreCoordinator.managedObjectID(forURIRepresentation: emmaURI))
print("Emma is \(emmaURI)")

// 4. Two contexts change the same book; the second save is refused, then merged and saved.
let shop = container.newBackgroundContext()
let archive = container.newBackgroundContext()
for context in [shop, archive] {
    _ = try await context.perform { try $0.existingObject(with: emmaID).objectID }
}
try await shop.perform { context in
    let emma = try require(context.registeredObject(for: emmaID) as? Book)
    emma.copies = 3
    try context.save()
}
let conflict = try await archive.perform { context -> String in
    let emma = try require(context.registeredObject(for: emmaID) as? Book)
    emma.title = "Emma: A Novel"
    do {
        try context.save()
        return "no conflict?"
    } catch let error as PersistenceError where error.code == .conflict {
        context.refresh(emma, mergeChanges: true)
        try context.save()
        return "caught a conflict, merged, saved: \"\(emma.title)\" with \(emma.copies) copies"
    }
}
print("Two contexts edited Emma: \(conflict)")

// 5. Deleting an author cascades to their books.
let remaining = try await container.performBackgroundTask { context in
    var request = FetchRequest<Author>()
    request.sortDescriptors = [.ascending("name")]
    let dickens = try require(try context.fetch(request).first { $0.name == "Charles Dickens" })
    context.delete(dickens)
    try context.save()
    return (try context.count(for: FetchRequest<Author>()), try context.count(for: FetchRequest<Book>()))
}
print("Deleted Charles Dickens and, by cascade, his books: \(remaining.0) authors and \(remaining.1) books remain")


// 6. A new container on the same file finds every saved object, with its relationships.
if let store = stores.first { try await container.persistentStoreCoordinator.removePersistentStore(store) }
let reopened = PersistentContainer(name: "Library", managedObjectModel: model)
reopened.persistentStoreDescriptions = [PersistentStoreDescription(type: storeType, url: storeURL)]
try await reopened.loadPersistentStores()
let reread = try await reopened.viewContext.perform { context in
    var request = FetchRequest<Author>()
    request.sortDescriptors = [.ascending("name")]
    return try context.fetch(request).map { "\($0.name) (\($0.books.count) books)" }
}
// (A SQLite store's latest pages may still be in its write-ahead log beside it.)
let size = ["", "-wal"].reduce(0) { total, suffix in
    total + (((try? FileManager.default.attributesOfItem(atPath: storeURL.path + suffix)[.size]) as? Int) ?? 0)
}
print("Reopened the \(storeType) store \(storeURL.path) (\(size) bytes): \(reread.joined(separator: ", "))")
