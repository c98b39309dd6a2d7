import Foundation
@testable import Strata
import Testing

/// Xcode's generated classes give `Book.fetchRequest()`, a request for the class's entity
/// (`NSFetchRequest<Book>(entityName: "Book")`); code ported from Core Data calls it.
@Suite struct FetchRequestMakingTests {
    @Test(arguments: [StoreKind.inMemory, .sqlite])
    func aClassMakesTheRequestForItsEntity(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let titles = try await backgroundContext(coordinator).perform { context in
            for (title, pages) in [("Emma", 474), ("Persuasion", 249), ("Middlemarch", 880)] {
                let book = try Book(context: context)
                book.title = title
                book.pages = pages
            }
            try context.save()
            var request = Book.fetchRequest()
            request.predicate = try FetchPredicate(format: "pages < %d", 500)
            request.sortDescriptors = [.ascending("title")]
            let books: [Book] = try context.fetch(request)
            return books.map(\.title)
        }
        #expect(titles == ["Emma", "Persuasion"])
        let count = try await backgroundContext(coordinator).perform { try $0.count(for: Author.fetchRequest()) }
        #expect(count == 0)
    }
}
