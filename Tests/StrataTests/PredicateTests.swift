import Foundation
@testable import Strata
import Testing

/// The predicate language, table-driven: each format string with its normalised form and the
/// books it matches on a fixed small graph.
@Suite struct PredicateTests {
    /// Six books, four authors, five tags; saved.
    static func graph(_ kind: StoreKind) async throws -> (PersistentStoreCoordinator, [String: ManagedObjectID]) {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let ids = try await backgroundContext(coordinator).perform { context in
            var ids: [String: ManagedObjectID] = [:]
            var authors: [String: Author] = [:]
            for (name, born) in [("Jane Austen", 1775), ("George Eliot", 1819), ("Émile Zola", 1840), ("Mary Shelley", 0)] {
                let author = try Author(context: context)
                author.name = name
                author.born = born == 0 ? nil : Calendar(identifier: .gregorian).date(from: DateComponents(year: born, month: 6, day: 1))
                authors[name] = author
            }
            var tags: [String: Tag] = [:]
            for label in ["classic", "romance", "long", "french", "gothic"] {
                let tag = try Tag(context: context)
                tag.label = label
                tags[label] = tag
            }
            let books: [(String, Int, String, [String])] = [
                ("Emma", 474, "Jane Austen", ["classic", "romance"]), ("Persuasion", 249, "Jane Austen", ["classic"]),
                ("Middlemarch", 880, "George Eliot", ["classic", "long"]), ("Germinal", 592, "Émile Zola", ["french"]),
                ("Frankenstein", 280, "Mary Shelley", ["gothic", "classic"]), ("Nana", 400, "Émile Zola", ["french", "classic"]),
            ]
            var saved: [String: Book] = [:]
            for (title, pages, author, labels) in books {
                let book = try Book(context: context)
                book.title = title
                book.pages = pages
                book.author = authors[author]
                book.tags = Set(labels.compactMap { tags[$0] })
                saved[title] = book
            }
            try context.save()
            for (title, book) in saved { ids[title] = book.objectID }
            for (name, author) in authors { ids[name] = author.objectID }
            for (label, tag) in tags { ids[label] = tag.objectID }
            return ids
        }
        return (coordinator, ids)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let format: String
        let normalized: String
        let matches: [String]
        var testDescription: String { format }

        init(_ format: String, _ normalized: String, _ matches: [String]) {
            self.format = format
            self.normalized = normalized
            self.matches = matches.sorted()
        }

        /// A case whose normalised form is the format string itself.
        init(_ format: String, _ matches: [String]) {
            self.init(format, format, matches)
        }
    }

    static let all = ["Emma", "Persuasion", "Middlemarch", "Germinal", "Frankenstein", "Nana"]

    static let cases: [Case] = [
        Case("pages > 400", ["Emma", "Germinal", "Middlemarch"]),
        Case("pages >= 400 AND pages =< 592", "pages >= 400 AND pages <= 592", ["Emma", "Germinal", "Nana"]),
        Case("title == 'Emma' OR title = \"Nana\"", "title == \"Emma\" OR title == \"Nana\"", ["Emma", "Nana"]),
        Case("NOT (pages < 300)", "NOT pages < 300", ["Emma", "Germinal", "Middlemarch", "Nana"]),
        Case("!(pages < 300) && title <> 'Nana'", "NOT pages < 300 AND title != \"Nana\"", ["Emma", "Germinal", "Middlemarch"]),
        Case("(pages < 300 OR pages > 800) AND title != 'Persuasion'", "(pages < 300 OR pages > 800) AND title != \"Persuasion\"", ["Frankenstein", "Middlemarch"]),
        Case("title BEGINSWITH 'M'", "title BEGINSWITH \"M\"", ["Middlemarch"]),
        Case("title BEGINSWITH[c] 'm'", "title BEGINSWITH[c] \"m\"", ["Middlemarch"]),
        Case("author.name ENDSWITH 'Zola'", "author.name ENDSWITH \"Zola\"", ["Germinal", "Nana"]),
        Case("author.name CONTAINS[cd] 'EMILE'", "author.name CONTAINS[cd] \"EMILE\"", ["Germinal", "Nana"]),
        Case("author.name CONTAINS[c] 'emile'", "author.name CONTAINS[c] \"emile\"", []),
        Case("title LIKE '*arch'", "title LIKE \"*arch\"", ["Middlemarch"]),
        Case("title LIKE[c] 'n?NA'", "title LIKE[c] \"n?NA\"", ["Nana"]),
        Case("title MATCHES '[EP].*'", "title MATCHES \"[EP].*\"", ["Emma", "Persuasion"]),
        Case("title IN {'Emma', 'Nana', 'Ulysses'}", "title IN {\"Emma\", \"Nana\", \"Ulysses\"}", ["Emma", "Nana"]),
        Case("'Emma' IN title", "\"Emma\" IN title", ["Emma"]),
        Case("pages BETWEEN {250, 480}", ["Emma", "Frankenstein", "Nana"]),
        Case("ANY tags.label == 'french'", "ANY tags.label == \"french\"", ["Germinal", "Nana"]),
        Case("SOME tags.label == 'gothic'", "ANY tags.label == \"gothic\"", ["Frankenstein"]),
        Case("ALL tags.label IN {'classic', 'romance'}", "ALL tags.label IN {\"classic\", \"romance\"}", ["Emma", "Persuasion"]),
        Case("NONE tags.label == 'classic'", "NONE tags.label == \"classic\"", ["Germinal"]),
        Case("tags.label == 'long'", "tags.label == \"long\"", ["Middlemarch"]),
        Case("tags.@count == 2", ["Emma", "Frankenstein", "Middlemarch", "Nana"]),
        Case("author.books.@count == 2", ["Emma", "Germinal", "Nana", "Persuasion"]),
        Case("author.books.@sum.pages > 900", ["Germinal", "Nana"]),
        Case("author.books.@max.pages == pages", ["Emma", "Frankenstein", "Germinal", "Middlemarch"]),
        Case("author.books.@avg.pages < 400", ["Emma", "Frankenstein", "Persuasion"]),
        Case("SUBQUERY(tags, $t, $t.label BEGINSWITH 'c').@count > 0 AND pages < 300",
             "SUBQUERY(tags, $t, $t.label BEGINSWITH \"c\").@count > 0 AND pages < 300", ["Frankenstein", "Persuasion"]),
        Case("author.born == nil", ["Frankenstein"]),
        Case("author != NULL", "author != nil", all),
        Case("TRUEPREDICATE", all),
        Case("FALSEPREDICATE", []),
        Case("pages * 2 > 1000", ["Germinal", "Middlemarch"]),
        Case("pages + 1 == 475", ["Emma"]),
        Case("-pages < -800", ["Middlemarch"]),
        Case("(pages - 400) ** 2 < 100", "(pages - 400) ** 2 < 100", ["Nana"]),
        Case("pages & 1 == 1", ["Persuasion"]),
        Case("modulus:by:(pages, 2) == 1", ["Persuasion"]),
        Case("lowercase:(title) == 'emma'", "lowercase:(title) == \"emma\"", ["Emma"]),
        Case("uppercase:(title) BEGINSWITH 'MID'", "uppercase:(title) BEGINSWITH \"MID\"", ["Middlemarch"]),
        Case("TERNARY(pages > 500, 'long', 'short') == 'long'", "TERNARY(pages > 500, \"long\", \"short\") == \"long\"", ["Germinal", "Middlemarch"]),
        Case("0x1DA == pages", "474 == pages", ["Emma"]),
        Case("tags[SIZE] == 1", ["Germinal", "Persuasion"]),
        Case("CAST(pages, 'NSString') == '474'", "CAST(pages, \"NSString\") == \"474\"", ["Emma"]),
        Case("sum:({1, 2, 3}) == 6", all),
        Case("count:(tags) >= 2 AND max:({pages, 500}) == pages", ["Middlemarch"]),
        Case("title.length == 4", ["Emma", "Nana"]),
        Case("#title == 'Emma'", "title == \"Emma\"", ["Emma"]),
        Case("author.born < CAST(-31536000000, 'NSDate')", "author.born < CAST(-31536000000, \"NSDate\")", []),
        Case("FUNCTION(title, 'noindex:') == 'Emma'", "FUNCTION(title, \"noindex:\") == \"Emma\"", []),
    ]

    @Test(arguments: StoreKind.queryable, cases)
    func parsesNormalisesAndMatches(_ kind: StoreKind, _ testCase: Case) async throws {
        let predicate = try FetchPredicate(format: testCase.format)
        #expect(predicate.description == testCase.normalized)
        #expect(try FetchPredicate(format: predicate.description) == predicate, "the normalised form parses back to the same predicate")
        let (coordinator, _) = try await Self.graph(kind)
        let result: Result<[String], FetchPredicateError> = try await backgroundContext(coordinator).perform { context in
            do {
                return .success(try context.fetch(FetchRequest<Book>(predicate: predicate)).map(\.title).sorted())
            } catch {
                return .failure(error as! FetchPredicateError)
            }
        }
        if testCase.format.hasPrefix("FUNCTION") {
            #expect(throws: FetchPredicateError.self) { try result.get() }
        } else {
            #expect(try result.get() == testCase.matches)
        }
    }

    /// Strings compare by their Unicode scalars on every store, as Core Data's SQLite store
    /// compares them: "é" as one scalar and as "e" + U+0301 are two strings (Swift's `==` would
    /// call them equal), and sort in UTF-8 byte order. Folding (`[d]`) makes them one.
    @Test(arguments: [StoreKind.inMemory, .binary, .sqlite])
    func stringsCompareByTheirScalars(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let (composed, decomposed) = ("Caf\u{E9}", "Cafe\u{301}")
        try await backgroundContext(coordinator).perform { context in
            for title in [composed, decomposed] {
                let book = try Book(context: context)
                book.title = title
            }
            try context.save()
        }
        // A new context reads the stored rows, not objects it holds.
        let results = try await backgroundContext(coordinator).perform { context in
            try [
                ("title == %@", composed), ("title BEGINSWITH %@", "Cafe"), ("title ==[d] %@", "Cafe"), ("title < %@", composed),
                ("title CONTAINS %@", "\u{E9}"),
            ].map { format, argument in
                try context.fetch(FetchRequest<Book>(predicate: try FetchPredicate(format: format, argument))).map(\.title).sorted()
            } + [try context.fetch(FetchRequest<Book>(sortDescriptors: [.ascending("title")])).map(\.title)]
        }
        #expect(results[0] == [composed])
        #expect(results[1] == [decomposed])
        #expect(Set(results[2]) == [composed, decomposed])
        #expect(results[3] == [decomposed], "U+0065 sorts before U+00E9")
        #expect(results[4] == [composed])
        #expect(results[5] == [decomposed, composed])
    }

    @Test(arguments: StoreKind.queryable)
    func argumentsFillTheirPlaces(_ kind: StoreKind) async throws {
        let (coordinator, ids) = try await Self.graph(kind)
        let austen = try #require(ids["Jane Austen"])
        let emma = try #require(ids["Emma"])
        let gothic = try #require(ids["gothic"])
        let date = try #require(Calendar(identifier: .gregorian).date(from: DateComponents(year: 1800, month: 1, day: 1)))
        let predicates: [(FetchPredicate, [String])] = [
            (try FetchPredicate(format: "%K == %@", "title", "Emma"), ["Emma"]),
            (try FetchPredicate(format: "pages > %d", 500), ["Germinal", "Middlemarch"]),
            (try FetchPredicate(format: "pages < %ld AND pages > %lld", Int64(300), Int16(250)), ["Frankenstein"]),
            (try FetchPredicate(format: "pages > %f", 879.5), ["Middlemarch"]),
            (try FetchPredicate(format: "title == %s", "Nana"), ["Nana"]),
            (try FetchPredicate(format: "author == %@", austen), ["Emma", "Persuasion"]),
            (try FetchPredicate(format: "SELF == %@", emma), ["Emma"]),
            (try FetchPredicate(format: "tags CONTAINS %@", gothic), ["Frankenstein"]),
            (try FetchPredicate(format: "title IN %@", ["Emma", "Nana"]), ["Emma", "Nana"]),
            (try FetchPredicate(format: "author.born < %@", date), ["Emma", "Persuasion"]),
            (try FetchPredicate(format: "pages >= $minimum").withSubstitutionVariables(["minimum": 800]), ["Middlemarch"]),
            (try FetchPredicate(format: "SUBQUERY(tags, $t, $t.label == $label).@count == 1")
                .withSubstitutionVariables(["label": "romance"]), ["Emma"]),
        ]
        for (predicate, expected) in predicates {
            let titles = try await backgroundContext(coordinator).perform { context in
                try context.fetch(FetchRequest<Book>(predicate: predicate)).map(\.title).sorted()
            }
            #expect(titles == expected, "\(predicate)")
        }
        #expect(try FetchPredicate(format: "%K BEGINSWITH[c] %@", "author.name", "jane").description
            == "author.name BEGINSWITH[c] \"jane\"")
    }

    @Test(arguments: [
        ("pages >= ", "expected a value after '>=' at column 10"),
        ("title == 'Emma", "the string that starts here is not closed at column 10"),
        ("pages > 3 AND", "expected a value after AND at column 14"),
        ("title LIKE", "expected a value after LIKE at column 11"),
        ("pages > 3 pages", "unexpected 'pages' at column 11"),
        ("pages 3", "expected a comparison operator after 'pages' at column 7, found 3"),
        ("title CONTAINS[x] 'a'", "unknown comparison option 'x' at column 16"),
        ("pages @ 3", "expected a collection operator after '@' at column 7"),
        ("title == %@", "no argument for '%@' at column 10"),
        ("SUBQUERY(tags, t, t.label == 'x').@count > 0", "expected a $variable in SUBQUERY after ',' at column 16, found 't'"),
        ("pages > 3 AND (title == 'x'", "expected ')' after \"x\" at column 28"),
        ("{1, 2 == 3", "expected ',' or '}' in the list after 2 at column 7, found '=='"),
    ])
    func parseErrorsSayWhereAndWhat(_ format: String, _ message: String) {
        let error = #expect(throws: FetchPredicateError.self) { try FetchPredicate(format: format) }
        #expect(error?.code == .syntax || error?.code == .badArgument)
        #expect(error?.message == message)
    }

    @Test(arguments: StoreKind.queryable)
    func unknownKeysAreNamedAtFetchTime(_ kind: StoreKind) async throws {
        let (coordinator, _) = try await Self.graph(kind)
        for (format, message) in [
            ("titel == 'x'", "the entity Book has no key 'titel'"),
            ("author.nam == 'x'", "the entity Author has no key 'nam'"),
            ("ANY tags.lable == 'x'", "the entity Tag has no key 'lable'"),
            ("SUBQUERY(tags, $t, $t.name == 'x').@count > 0", "the entity Tag has no key 'name'"),
        ] {
            let predicate = try FetchPredicate(format: format)
            let error = try await backgroundContext(coordinator).perform { context in
                #expect(throws: FetchPredicateError.self) { try context.fetch(FetchRequest<Book>(predicate: predicate)) }
            }
            #expect(error?.code == .unknownKey)
            #expect(error?.message == message)
        }
    }

    @Test(arguments: StoreKind.queryable)
    func pendingChangesAreSeenUnlessTheRequestSaysNot(_ kind: StoreKind) async throws {
        let (coordinator, _) = try await Self.graph(kind)
        try await backgroundContext(coordinator).perform { context in
            let books = try context.fetch(FetchRequest<Book>())
            try #require(books.first { $0.title == "Persuasion" }).pages = 999
            context.delete(try #require(books.first { $0.title == "Middlemarch" }))
            let new = try Book(context: context)
            new.title = "Ulysses"
            new.pages = 730
            var request = FetchRequest<Book>(predicate: try FetchPredicate(format: "pages > 700"))
            request.sortDescriptors = [.ascending("title")]
            #expect(try context.fetch(request).map(\.title) == ["Persuasion", "Ulysses"])
            #expect(try context.count(for: request) == 2)
            request.includesPendingChanges = false
            #expect(try context.fetch(request).map(\.title) == ["Middlemarch"])
        }
    }

    @Test(arguments: StoreKind.queryable)
    func sortingFollowsToOneKeyPathsAndOptions(_ kind: StoreKind) async throws {
        let (coordinator, _) = try await Self.graph(kind)
        let titles = try await backgroundContext(coordinator).perform { context in
            var request = FetchRequest<Book>()
            request.sortDescriptors = [.ascending("author.name", options: [.caseInsensitive, .diacriticInsensitive]), .descending("pages")]
            return try context.fetch(request).map(\.title)
        }
        #expect(titles == ["Germinal", "Nana", "Middlemarch", "Emma", "Persuasion", "Frankenstein"])
    }

    @Test(arguments: StoreKind.queryable)
    func everyResultType(_ kind: StoreKind) async throws {
        let (coordinator, ids) = try await Self.graph(kind)
        try await backgroundContext(coordinator).perform { context in
            var request = FetchRequest<Book>(predicate: try FetchPredicate(format: "author.name == 'Jane Austen'"))
            request.sortDescriptors = [.ascending("title")]
            #expect(try context.fetchObjectIDs(request) == [ids["Emma"], ids["Persuasion"]].compactMap { $0 })
            #expect(try context.count(for: request) == 2)

            request.propertiesToFetch = [.key("title"), .key("author.name"), .key("author")]
            let rows = try context.fetchDictionaries(request)
            #expect(rows.count == 2)
            #expect(rows.first?["title"] as? String == "Emma")
            #expect(rows.first?["author.name"] as? String == "Jane Austen")
            #expect(rows.first?["author"] as? ManagedObjectID == ids["Jane Austen"])

            var grouped = FetchRequest<Book>()
            grouped.sortDescriptors = [.ascending("author.name")]
            grouped.propertiesToGroupBy = ["author.name"]
            grouped.propertiesToFetch = [
                .key("author.name"),
                ExpressionDescription(name: "books", expression: try ValueExpression(format: "count:(title)")),
                ExpressionDescription(name: "pages", expression: try ValueExpression(format: "sum:(pages)")),
            ]
            grouped.havingPredicate = try FetchPredicate(format: "books == 2")
            let groups = try context.fetchDictionaries(grouped)
            #expect(groups.map { $0["author.name"] as? String } == ["Jane Austen", "Émile Zola"])
            #expect(groups.map { $0["pages"] as? Int64 } == [723, 992])

            var distinct = FetchRequest<Book>()
            distinct.propertiesToFetch = [.key("author.name")]
            distinct.returnsDistinctResults = true
            #expect(try context.fetchDictionaries(distinct).count == 4)
        }
    }

    @Test func expressionsStandOnTheirOwn() throws {
        let expression = try ValueExpression(format: "books.@sum.pages + 1")
        #expect(expression.description == "books.@sum.pages + 1")
        #expect(try ValueExpression(format: "now()").description == "now()")
        #expect(try ValueExpression(format: "add:to:(1, 2)").description == "add:to:(1, 2)")
        #expect(try ValueExpression(format: "{1, 2}[LAST]").description == "{1, 2}[LAST]")
        #expect(try ValueExpression(format: "$x").withSubstitutionVariables(["x": 3]) == .constant(.integer(3)))
    }
}

/// Format strings as code writes them: specifiers left in place, bare key paths.
@Suite struct PredicatePlaceholderTests {
    @Test func specifiersBeyondTheArgumentsStayAsPlaceholders() throws {
        let predicate = try FetchPredicate(formatWithPlaceholders: "%K == %@ AND pages > %d", arguments: ["title"])
        #expect(predicate.description == "title == %@ AND pages > %d")
        #expect(throws: FetchPredicateError.self) { try FetchPredicate(formatWithPlaceholders: "x == %q") }
        // Without placeholders, a missing argument is still an error.
        let error = #expect(throws: FetchPredicateError.self) { try FetchPredicate(format: "x == %@") }
        #expect(error?.message == "no argument for '%@' at column 6")
    }

    @Test(arguments: StoreKind.queryable)
    func aPlaceholderCannotBeEvaluated(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(try libraryModel(), kind)
        try await backgroundContext(coordinator).perform { context in
            let request = FetchRequest<Book>(entityName: "Book", predicate: try FetchPredicate(formatWithPlaceholders: "title == %@"))
            let error = #expect(throws: FetchPredicateError.self) { try context.fetch(request) }
            #expect(error?.message == "the argument '%@' has no value: give the format string its arguments")
        }
    }

    @Test func aBareKeyPathIsAPredicateOnABoolean() throws {
        #expect(try FetchPredicate(format: "isDone").description == "isDone == YES")
        #expect(try FetchPredicate(format: "%K", "flag").description == "flag == YES")
        #expect(try FetchPredicate(format: "(a OR b.c) AND d == 1").description == "(a == YES OR b.c == YES) AND d == 1")
        #expect(throws: FetchPredicateError.self) { try FetchPredicate(format: "ANY tags") }
        #expect(throws: FetchPredicateError.self) { try FetchPredicate(format: "a b") }
    }
}
