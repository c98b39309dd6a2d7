import Foundation
import Strata
import Testing

/// A dictionary fetch written as Core Data code writes it (issue 33): `NSExpressionDescription()`
/// with `name`, `expression` (`NSExpression(forFunction:arguments:)`,
/// `NSExpression(forKeyPath:)`) and `expressionResultType` set one by one, key paths in
/// `propertiesToFetch` as strings, `request.entity = …`. Core Data's documentation of
/// `expressionResultType`: the type of the value the expression gives.
@Suite struct ExpressionDescriptionAPITests {
    @Test(arguments: StoreKind.queryable)
    func aDictionaryFetchAsCoreDataCodeWritesIt(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(libraryModel(), kind)
        let rows = try await backgroundContext(coordinator).perform { context in
            for (title, pages, author) in [("Emma", 20, "Austen"), ("Persuasion", 37, "Austen"), ("Middlemarch", 50, "Eliot")] {
                let book = try Book(context: context)
                book.title = title
                book.pages = pages
                let writer = try context.fetch(FetchRequest<Author>(predicate: try FetchPredicate(format: "name == %@", author))).first
                book.author = try writer ?? {
                    let made = try Author(context: context)
                    made.name = author
                    return made
                }()
            }
            try context.save()

            var total = ExpressionDescription()
            total.name = "total"
            total.expression = ValueExpression(forFunction: "sum:", arguments: [ValueExpression(forKeyPath: "pages")])
            total.expressionResultType = .doubleAttributeType
            var mean = ExpressionDescription()
            mean.name = "mean"
            mean.expression = ValueExpression(forFunction: "average:", arguments: [ValueExpression(forKeyPath: "pages")])
            mean.expressionResultType = .integer64AttributeType

            var request = FetchRequest<Book>()
            request.entity = EntityDescription.entity(forEntityName: "Book", in: context)
            request.propertiesToFetch = ["author.name", total, mean]
            request.propertiesToGroupBy = ["author.name"]
            request.sortDescriptors = [.ascending("author.name")]
            return try context.fetchDictionaries(request).map { row in
                "\(row["author.name"] as? String ?? "?") \(row["total"] as? Double ?? -1) \(row["mean"] as? Int ?? -1)"
            }
        }
        // Austen: 57 pages, a mean of 28.5 truncated to 28; Eliot: 50.
        #expect(rows == ["Austen 57.0 28", "Eliot 50.0 50"])
    }

    @Test func theRequestsEntityNamesIt() throws {
        let model = try libraryModel()
        var request = FetchRequest<Book>(entityName: "Book")
        #expect(request.entity == nil, "a request made with a name resolves it when it runs")
        request.entity = model.entitiesByName["Author"]
        #expect(request.entityName == "Author" && request.entity?.name == "Author")
        request.entityName = "Book"
        #expect(request.entity == nil, "the name changed since")
        request.entity = nil
        #expect(request.entityName == nil)
    }

    @Test func aStoresMetadataIsCheckedByConfigurationName() throws {
        let model = try libraryModel()
        #expect(model.isConfiguration(withName: nil, compatibleWithStoreMetadata: model.storeMetadata(forConfigurationName: nil)))
        let other = try ManagedObjectModel { EntityDescription("Book") { AttributeDescription("title", .string) } }
        #expect(!model.isConfiguration(withName: nil, compatibleWithStoreMetadata: other.storeMetadata(forConfigurationName: nil)))
    }
}
