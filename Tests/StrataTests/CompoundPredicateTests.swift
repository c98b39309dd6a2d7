import Foundation
import Strata
import Testing

/// `NSCompoundPredicate` as Core Data code builds filters from parts (issue 33; Core Data's
/// documentation of `NSCompoundPredicate`: an AND of no subpredicates is true, an OR of none
/// false), and `NSPredicate(value:)`, fetched in memory and in SQL.
@Suite struct CompoundPredicateTests {
    @Test(arguments: StoreKind.queryable)
    func filtersBuiltFromPartsFetchAsTheirFormatsDo(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let results = try await backgroundContext(coordinator).perform { context in
            for (title, pages) in [("Emma", 20), ("Persuasion", 37), ("Sanditon", 5), ("Lady Susan", 50)] {
                let book = try Book(context: context)
                book.title = title
                book.pages = pages
            }
            try context.save()
            let long = try FetchPredicate(format: "pages > %d", 10)
            let early = try FetchPredicate(format: "title < %@", "M")
            let predicates: [FetchPredicate] = [
                CompoundPredicate(andPredicateWithSubpredicates: [long, early]),
                CompoundPredicate(orPredicateWithSubpredicates: [early, try FetchPredicate(format: "pages == 5")]),
                CompoundPredicate(notPredicateWithSubpredicate: long),
                CompoundPredicate(type: .and, subpredicates: [long]),
                CompoundPredicate(andPredicateWithSubpredicates: []),
                CompoundPredicate(orPredicateWithSubpredicates: []),
                FetchPredicate(value: true),
            ]
            return try predicates.map { predicate in
                var request = FetchRequest<Book>(predicate: predicate, sortDescriptors: [.ascending("title")])
                request.includesPendingChanges = false
                return try context.fetch(request).map(\.title)
            }
        }
        #expect(results == [
            ["Emma", "Lady Susan"], ["Emma", "Lady Susan", "Sanditon"], ["Sanditon"], ["Emma", "Lady Susan", "Persuasion"],
            ["Emma", "Lady Susan", "Persuasion", "Sanditon"], [], ["Emma", "Lady Susan", "Persuasion", "Sanditon"],
        ])
    }

    @Test func partsAndFormatsAreCoreDatas() throws {
        let a = try FetchPredicate(format: "pages > 10"), b = try FetchPredicate(format: "title BEGINSWITH 'E'")
        let both = CompoundPredicate(andPredicateWithSubpredicates: [a, CompoundPredicate(orPredicateWithSubpredicates: [b, a])])
        #expect(both.description == "pages > 10 AND (title BEGINSWITH \"E\" OR pages > 10)")
        #expect(both.compoundPredicateType == .and && both.subpredicates.count == 2)
        #expect(CompoundPredicate(andPredicateWithSubpredicates: []).description == "TRUEPREDICATE")
        #expect(CompoundPredicate(orPredicateWithSubpredicates: []).description == "FALSEPREDICATE")
        #expect(CompoundPredicate(notPredicateWithSubpredicate: a).description == "NOT pages > 10")
        #expect(a.compoundPredicateType == nil && a.subpredicates.isEmpty)
        #expect(try FetchPredicate(format: both.description) == both, "the format reads back as the same predicate")
    }
}
