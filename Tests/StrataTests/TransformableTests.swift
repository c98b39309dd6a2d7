import Foundation
import StrataFileFormats
@testable import Strata
import StrataTestSupport
import Testing

/// Transformable attributes as Core Data stores them (issue 28, class 4): the value
/// transformer's output, an `NSKeyedArchiver` archive when the model names none or
/// `NSSecureUnarchiveFromData`; a registered transformer by name; bytes Strata cannot decode kept
/// exactly and reported by a typed error, never read as `nil` in silence.
@Suite struct TransformableTests {
    final class Note: ManagedObject {
        @Attribute("title") var title: String?
        @Attribute("tags") var tags: [String]?
        @Attribute("scores") var scores: [String: Int32]?
        @Attribute("places") var places: Set<URL>?
        @Attribute("extra") var extra: Data?
        @Attribute("shape") var shape: Shape?
    }

    struct Shape: Codable, Equatable, TransformableAttribute {
        var name: String
        var corners: [Int16]
        var when: Date
    }

    static func model(transformer: String? = nil) throws -> ManagedObjectModel {
        func transformable(_ name: String) -> AttributeDescription {
            var attribute = AttributeDescription(name: name, type: .transformable, isOptional: true)
            attribute.valueTransformerName = transformer
            return attribute
        }
        return try ManagedObjectModel(entities: [
            EntityDescription(
                name: "Note", managedObjectClass: Note.self,
                attributes: [
                    AttributeDescription(name: "title", type: .string, isOptional: true), transformable("tags"), transformable("scores"),
                    transformable("places"), transformable("extra"), transformable("shape"),
                ])
        ])
    }

    static let shape = Shape(name: "kite", corners: [1, -2, 3], when: Date(timeIntervalSinceReferenceDate: 737_057_646.5))

    /// Typed values of every collection kind round-trip on every store type, stored as keyed archives.
    @Test(arguments: StoreKind.allCases)
    func typedValuesRoundTripOnEveryStoreType(_ kind: StoreKind) async throws {
        let store = try await StoreUnderTest(kind, model: try Self.model())
        defer { store.remove() }
        let id = try await store.withContext { context in
            let note = try Note(context: context)
            note.tags = ["swift", "naïve", "swift"]
            note.scores = ["a": 1, "b": -40_000]
            note.places = [URL(string: "https://example.com/a")!, URL(string: "file:///tmp/b")!]
            note.shape = Self.shape
            try context.save()
            return note.objectID
        }
        let (tags, scores, places, shape, stored) = try await store.withContext { context in
            let note = try #require(try context.existingObject(with: id) as? Note)
            let stored = try note.primitiveAttributeValue(forKey: "tags")
            return (note.tags, note.scores, note.places, note.shape, stored)
        }
        #expect(tags == ["swift", "naïve", "swift"])
        #expect(scores == ["a": 1, "b": -40_000])
        #expect(places == [URL(string: "https://example.com/a")!, URL(string: "file:///tmp/b")!])
        #expect(shape == Self.shape)
        guard case .transformable(let bytes)? = stored else {
            Issue.record("\(kind): tags are stored as \(String(describing: stored))")
            return
        }
        #expect(try ArchivedValue(keyedArchive: bytes) == .array([.string("swift"), .string("naïve"), .string("swift")]))
    }

    /// What the SQLite store writes is the archive an app's Core Data reads: checked by an
    /// independent reader (Python's `plistlib`) for each kind of value, through `setValue`.
    @Test(.enabled(if: Fixtures.hasPython3, "python3 is not here"))
    func eachKindOfValueIsStoredAsFoundationsArchive() async throws {
        let values: [(String, @Sendable () -> Any, ArchivedValue)] = [
            ("a string", { "naïve ☕️" }, .string("naïve ☕️")),
            ("an integer", { 42 }, .integer(42)),
            ("a double", { 2.5 }, .double(2.5)),
            ("a Boolean", { true }, .boolean(true)),
            ("data", { Data([0, 255]) }, .data(Data([0, 255]))),
            ("a date", { Date(timeIntervalSinceReferenceDate: 1.25) }, .date(Date(timeIntervalSinceReferenceDate: 1.25))),
            ("a URL", { URL(string: "https://example.com/x")! }, .url(URL(string: "https://example.com/x")!)),
            ("a UUID", { UUID(uuidString: "0F9619FF-8B86-D011-B42D-00C04FC964FF")! }, .uuid(UUID(uuidString: "0F9619FF-8B86-D011-B42D-00C04FC964FF")!)),
            ("a decimal", { Decimal(string: "12.345")! }, .decimal(Decimal(string: "12.345")!)),
            ("null", { NSNull() }, .null),
            ("an array", { ["a", 1] as [Any] }, .array([.string("a"), .integer(1)])),
            ("a set", { Set<AnyHashable>(["x", "y"]) }, .set([.string("x"), .string("y")])),
            ("a dictionary", { ["k": [1.5, true]] as [String: Any] }, .dictionary([.string("k"): .array([.double(1.5), .boolean(true)])])),
        ]
        let store = try await StoreUnderTest(.sqlite, model: try Self.model())
        defer { store.remove() }
        for (kind, value, archived) in values {
            let id = try await store.withContext { context in
                let note = try context.insertNewObject(forEntityName: "Note")
                try note.setValue(value(), forKey: "extra")
                try context.save()
                return note.objectID.referenceNumber ?? 0
            }
            let connection = try SQLiteConnection(url: store.url, readOnly: true, create: false, busyTimeout: .seconds(5))
            guard case .blob(let bytes)? = try connection.scalar("SELECT ZEXTRA FROM ZNOTE WHERE Z_PK = ?", [.integer(id)]) else {
                Issue.record("\(kind): no archive stored")
                continue
            }
            let decoded = try await KeyedArchiveTests.pythonDecode(bytes)
            #expect(try ArchivedValue(tagged: decoded["value"] as Any) == archived, "\(kind)")
            #expect((decoded["layout"] as? [String: Any])?["archiver"] as? String == "NSKeyedArchiver", "\(kind)")
        }
    }

    /// `value(forKey:)` gives Foundation's values, as Core Data's transformer would.
    @Test func keyValueCodingGivesAndTakesFoundationValues() async throws {
        let store = try await StoreUnderTest(.sqlite, model: try Self.model())
        defer { store.remove() }
        let (tags, scores, nothing) = try await store.withContext { context in
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue(["x", "y"], forKey: "tags")
            try note.setValue(["a": 1], forKey: "scores")
            try context.save()
            context.reset()
            let fetched = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note"))[0]
            return (
                (try fetched.value(forKey: "tags") as? [Any])?.compactMap { $0 as? String },
                (try fetched.value(forKey: "scores") as? [String: Any])?["a"] as? Int, try fetched.value(forKey: "shape") == nil
            )
        }
        #expect(tags == ["x", "y"])
        #expect(scores == 1)
        #expect(nothing)
    }

    /// An archive of a class Strata cannot decode (an app's own `NSCoding` class, `UIColor`):
    /// the object reads; the value's access throws naming the class; the bytes round-trip through
    /// saves and a migration unchanged, and `dump` writes them as base64.
    @Test func anArchiveOfAnUnknownClassIsKeptAndReported() async throws {
        let colour = BinaryPropertyListWriter.data(
            .dictionary([
                "$version": .integer(100_000), "$archiver": .string("NSKeyedArchiver"), "$top": .dictionary(["root": .uid(1)]),
                "$objects": .array([
                    .string("$null"), .dictionary(["UIRed": .real(0.5), "$class": .uid(2)]),
                    .dictionary(["$classname": .string("UIColor"), "$classes": .array([.string("UIColor"), .string("NSObject")])]),
                ]),
            ]))
        let store = try await StoreUnderTest(.sqlite, model: try Self.model())
        defer { store.remove() }
        let id = try await store.withContext { context in
            let note = try Note(context: context)
            try note.setPrimitiveValue(AttributeValue.transformable(colour), forKey: "shape")
            try context.save()
            return note.objectID
        }
        try await store.withContext { context in
            let note = try #require(try context.existingObject(with: id) as? Note)
            let error = #expect(throws: TransformableValueError.self) { try note.value(forKey: "shape") }
            #expect(error?.code == .unknownClass && error?.className == "UIColor")
            #expect(throws: TransformableValueError.self) { try note.value(forKey: "shape", as: Shape.self) }
            #expect(note.shape == nil, "a typed optional reads nil, and logs the error")
            #expect(note.extra == nil && note.tags == nil)
            note.title = "changed beside it"
            try context.save()
        }
        let stored = try await store.withContext { context in try context.existingObject(with: id).primitiveAttributeValue(forKey: "shape") }
        #expect(stored == .transformable(colour), "the save wrote the bytes back as they were")
        let line = try await store.withContext { context in
            try context.existingObject(with: id).primitiveAttributeValue(forKey: "shape")?.jsonObject as? String
        }
        #expect(line == colour.base64EncodedString())
    }

    /// The bytes of an archive Strata cannot decode survive a migration unchanged, in place (SQLite)
    /// and by copying (binary).
    @Test(arguments: [StoreKind.sqlite, .binary])
    func anUndecodableArchiveSurvivesAMigration(_ kind: StoreKind) async throws {
        let archive = Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30]) + Data(repeating: 7, count: 40)  // damaged, too
        let store = try await StoreUnderTest(kind, model: try Self.model())
        defer { store.remove() }
        try await store.withContext { context in
            let note = try Note(context: context)
            try note.setPrimitiveValue(AttributeValue.transformable(archive), forKey: "shape")
            try context.save()
        }
        var v2 = try Self.model().entities
        v2[0].attributes.append(AttributeDescription(name: "added", type: .string, isOptional: true))
        let destination = try ManagedObjectModel(entities: v2)
        let plan = MigrationPlan(bundle: try ModelBundle(name: "Notes", versions: [("v1", try Self.model()), ("v2", destination)]))
        _ = try await plan.migrateStore(at: store.url, type: kind.type)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: destination)
        try await coordinator.addPersistentStore(type: kind.type, at: store.url)
        let stored = try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator).perform { context in
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).first?.primitiveAttributeValue(forKey: "shape")
        }
        #expect(stored == .transformable(archive))
    }

    /// A transformer named by the model is looked up by name: one nobody registered is a typed
    /// error naming it; once registered, its output is what is stored.
    @Test func aNamedTransformerIsUsedWhenRegisteredAndNamedWhenNot() async throws {
        let name = "ReversingTransformer\(UInt32.random(in: 0...UInt32.max))"
        let store = try await StoreUnderTest(.sqlite, model: try Self.model(transformer: name))
        defer { store.remove() }
        let failure = try await store.withContext { context in
            let note = try context.insertNewObject(forEntityName: "Note")
            return #expect(throws: ValidationError.self) { try note.setValue("abc", forKey: "extra") }
        }
        #expect(failure?.message.contains("the attribute's value transformer \(name) is not registered") == true)

        ValueTransformer.setValueTransformer(ReversingTransformer(), forName: .init(name))
        defer { ValueTransformer.setValueTransformer(nil, forName: .init(name)) }
        let id = try await store.withContext { context in
            let note = try context.insertNewObject(forEntityName: "Note")
            try note.setValue("abc", forKey: "extra")
            try context.save()
            return note.objectID
        }
        let (value, stored) = try await store.withContext { context in
            let note = try context.existingObject(with: id)
            return (try note.value(forKey: "extra") as? String, try note.primitiveAttributeValue(forKey: "extra"))
        }
        #expect(value == "abc")
        #expect(stored == .transformable(Data("cba".utf8)))
    }

    /// Values Strata stored as JSON before it wrote archives still read; a model that names
    /// `StrataJSONTransformer` stores JSON.
    @Test func jsonStoredBeforeAndJSONAskedForStillRead() async throws {
        let store = try await StoreUnderTest(.binary, model: try Self.model())
        defer { store.remove() }
        let id = try await store.withContext { context in
            let note = try Note(context: context)
            try note.setPrimitiveValue(AttributeValue.transformable(Data(#"["old","json"]"#.utf8)), forKey: "tags")
            try context.save()
            return note.objectID
        }
        let tags = try await store.withContext { context in (try context.existingObject(with: id) as? Note)?.tags }
        #expect(tags == ["old", "json"])

        let json = try await StoreUnderTest(.binary, model: try Self.model(transformer: "StrataJSONTransformer"))
        defer { json.remove() }
        let stored = try await json.withContext { context in
            let note = try Note(context: context)
            note.shape = Self.shape
            try context.save()
            return try note.primitiveAttributeValue(forKey: "shape")
        }
        guard case .transformable(let bytes)? = stored else {
            Issue.record("no value stored")
            return
        }
        #expect(try JSONDecoder.transformable.decode(Shape.self, from: bytes) == Self.shape)
    }

    /// Real archives Core Data wrote of an app's own classes (`CoreDataPlus_Tests.Cover`), under
    /// the app's transformer (`CoverTransformer`): each object reads; the value is a typed error
    /// naming the transformer until one is registered, then naming the class.
    @Test(.enabled(if: Fixtures.canReadSharedSQLiteStores, "the shared SQLite fixtures (or python3) are not here"))
    func realArchivesOfAnAppsClassesNameTheirClass() async throws {
        let url = try CoreDataStoreReader.copied(Fixtures.sharedSQLiteStores.appendingPathComponent(CoreDataStoreReadingTests.cachedOnly))
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let model = try SQLiteStore.cachedModel(ofStoreAt: url)
        let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
        try await coordinator.addPersistentStore(type: .sqlite, at: url, options: [PersistentStoreOption.readOnly: true])
        func errors() async throws -> [TransformableValueError] {
            try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator).perform { context in
                var request = FetchRequest<ManagedObject>(entityName: "Book")
                request.fetchLimit = 3
                return try context.fetch(request).compactMap { book -> TransformableValueError? in
                    do {
                        _ = try book.value(forKey: "cover")
                        return nil
                    } catch let error as TransformableValueError {
                        return error
                    }
                }
            }
        }
        #expect(try await errors().map(\.transformerName) == ["CoverTransformer", "CoverTransformer", "CoverTransformer"])
        ValueTransformer.setValueTransformer(CoverTransformer(), forName: .init("CoverTransformer"))
        defer { ValueTransformer.setValueTransformer(nil, forName: .init("CoverTransformer")) }
        #expect(try await errors().map(\.className) == ["CoreDataPlus_Tests.Cover", "CoreDataPlus_Tests.Cover", "CoreDataPlus_Tests.Cover"])
    }
}

/// Stores a string reversed, as its UTF-8 bytes.
final class ReversingTransformer: ValueTransformer, @unchecked Sendable {
    // Sendable: no stored properties.
    override func transformedValue(_ value: Any?) -> Any? { (value as? String).map { Data(String($0.reversed()).utf8) } }
    override func reverseTransformedValue(_ value: Any?) -> Any? { (value as? Data).map { String(String(decoding: $0, as: UTF8.self).reversed()) } }
}

/// What the app that wrote the fixture registers: Foundation's secure unarchiving transformer.
final class CoverTransformer: NSSecureUnarchiveFromDataTransformer, @unchecked Sendable {
    // Sendable: no stored properties.
}
