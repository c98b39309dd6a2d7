import Crypto
import Foundation
import Strata
import Testing

/// Core Data's version hashes, rule by rule, as `formats/coredata-version-hashes.md` gives them.
/// Each test spells out the bytes its rule says the hash covers, and checks Strata's hash
/// against SHA-256 over exactly those bytes; the fixture-store suite below checks the whole
/// against hashes that Core Data itself wrote.
@Suite struct VersionHashTests {
    /// The bytes of a rule, built the way the page describes them.
    struct Bytes {
        var data = Data()
        mutating func string(_ s: String) { data += Data(s.utf8) }
        mutating func uint16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { data += $0 } }
        mutating func int32(_ v: Int32) { withUnsafeBytes(of: v.littleEndian) { data += $0 } }
        mutating func uint32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data += $0 } }
        mutating func byte(_ v: UInt8) { data.append(v) }
        mutating func hash(_ h: Data) { data += h }
        var sha256: Data { Data(SHA256.hash(data: data)) }
    }

    /// Property rule: name, 16-bit flags (1 optional, 2 transient, 4 read-only), modifier.
    static func propertyHash(_ name: String, flags: UInt16, modifier: String? = nil) -> Data {
        var bytes = Bytes()
        bytes.string(name)
        bytes.uint16(flags)
        if let modifier { bytes.string(modifier) }
        return bytes.sha256
    }

    static func attributeHash(_ name: String, flags: UInt16, type: Int32, trailing: [UInt8] = [], modifier: String? = nil) -> Data {
        var bytes = Bytes()
        bytes.hash(propertyHash(name, flags: flags, modifier: modifier))
        bytes.int32(type)
        trailing.forEach { bytes.byte($0) }
        return bytes.sha256
    }

    @Test func anAttributeHashesItsPropertyPartAndItsTypeNumber() {
        #expect(AttributeDescription(name: "title", type: .string).versionHash == Self.attributeHash("title", flags: 0, type: 700))
        #expect(
            AttributeDescription(name: "title", type: .string, isOptional: true).versionHash
                == Self.attributeHash("title", flags: 1, type: 700))
        #expect(
            AttributeDescription(name: "n", type: .integer16, isOptional: true, isTransient: true).versionHash
                == Self.attributeHash("n", flags: 3, type: 100))
        #expect(
            AttributeDescription(name: "n", type: .decimal, versionHashModifier: "2").versionHash
                == Self.attributeHash("n", flags: 0, type: 400, modifier: "2"))
        let numbers: [AttributeType: Int32] = [
            .integer16: 100, .integer32: 200, .integer64: 300, .decimal: 400, .double: 500, .float: 600, .string: 700,
            .boolean: 800, .date: 900, .binaryData: 1000, .uuid: 1100, .uri: 1200, .transformable: 1800, .objectID: 2000,
        ]
        for (type, number) in numbers {
            #expect(type.coreDataNumber == number, "\(type)")
        }
    }

    @Test func externalStorageAndPreserveAfterDeletionAddAByteEach() {
        var data = AttributeDescription(name: "photo", type: .binaryData, isOptional: true)
        data.allowsExternalBinaryDataStorage = true
        #expect(data.versionHash == Self.attributeHash("photo", flags: 1, type: 1000, trailing: [1]))
        data.preservesValueInHistoryOnDeletion = true
        #expect(data.versionHash == Self.attributeHash("photo", flags: 1, type: 1000, trailing: [1, 1]))
        data.allowsExternalBinaryDataStorage = false
        #expect(data.versionHash == Self.attributeHash("photo", flags: 1, type: 1000, trailing: [1]))
    }

    @Test func aDerivedAttributeHashesItsExpressionAsCoreDataPrintsIt() {
        var count = AttributeDescription(name: "pagesCount", type: .integer64, isOptional: true)
        count.derivationExpression = "pages.@count"
        #expect(count.coreDataDerivationFormat == "count:(pages)")
        #expect(count.versionHash == Data(SHA256.hash(data: Data("count:(pages)".utf8))))
        var sum = count
        sum.derivationExpression = "items.price.@sum"
        #expect(sum.coreDataDerivationFormat == "sum:(items.price)")
        var path = count
        path.derivationExpression = "author.name"
        #expect(path.versionHash == Data(SHA256.hash(data: Data("author.name".utf8))))
    }

    static func relationshipHash(
        _ name: String, flags: UInt16, destination: String, inverse: String?, max: UInt32, min: UInt32, ordered: Bool = false
    ) -> Data {
        var bytes = Bytes()
        bytes.hash(propertyHash(name, flags: flags))
        bytes.string(destination)
        if let inverse { bytes.string(inverse) }
        bytes.uint32(max)
        bytes.uint32(min)
        if ordered { bytes.uint16(1) }
        return bytes.sha256
    }

    @Test func aRelationshipHashesDestinationInverseCountsAndOrder() throws {
        var toOne = RelationshipDescription("author", toOne: "Author", inverse: "books")
        toOne.minCount = 1  // as older Xcode versions write it on an optional to-one: it counts
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Author", relationships: [
                RelationshipDescription("books", toMany: "Book", inverse: "author", ordered: true),
                RelationshipDescription("fans", toMany: "Book", maxCount: -1),
                RelationshipDescription("spouse", toOne: "Author", inverse: "spouse"),
            ]),
            EntityDescription(name: "Book", relationships: [toOne]),
        ])
        let author = try #require(model.entity(named: "Author")).propertyVersionHashes
        let book = try #require(model.entity(named: "Book")).propertyVersionHashes
        #expect(book["author"] == Self.relationshipHash("author", flags: 1, destination: "Author", inverse: "books", max: 1, min: 1))
        #expect(
            author["books"]
                == Self.relationshipHash("books", flags: 1, destination: "Book", inverse: "author", max: 0, min: 0, ordered: true))
        #expect(
            author["fans"] == Self.relationshipHash("fans", flags: 1, destination: "Book", inverse: nil, max: 0xFFFF_FFFF, min: 0))
        #expect(
            author["spouse"] == Self.relationshipHash("spouse", flags: 1, destination: "Author", inverse: nil, max: 1, min: 0),
            "a relationship that is its own inverse adds no inverse name")
    }

    @Test func anEntityHashesNameAbstractParentSortedPropertiesModifierAndConstraints() throws {
        var work = EntityDescription("Work", isAbstract: true) {
            AttributeDescription("year", .integer16, optional: true)
            AttributeDescription("scratch", .string, transient: true)
        }
        work.versionHashModifier = "m"
        var essay = EntityDescription("Essay", superentity: "Work") {
            AttributeDescription("Zeta", .string)
            AttributeDescription("alpha", .string)
            UniquenessConstraint("alpha", "Zeta")
            UniquenessConstraint("Zeta")
        }
        essay.attributes.reverse()
        let model = try ManagedObjectModel(entities: [essay, work])
        let workHash = try #require(model.entity(named: "Work")).versionHash
        var expectedWork = Bytes()
        expectedWork.string("Work")
        expectedWork.byte(1)
        expectedWork.hash(Self.attributeHash("year", flags: 1, type: 100))  // the transient one is left out
        expectedWork.string("m")
        #expect(workHash == expectedWork.sha256)

        var expectedEssay = Bytes()
        expectedEssay.string("Essay")
        expectedEssay.byte(0)
        expectedEssay.hash(workHash)
        // Inherited properties too, in code-unit order: upper case before lower case.
        expectedEssay.hash(Self.attributeHash("Zeta", flags: 0, type: 700))
        expectedEssay.hash(Self.attributeHash("alpha", flags: 0, type: 700))
        expectedEssay.hash(Self.attributeHash("year", flags: 1, type: 100))
        expectedEssay.string("Zeta")
        expectedEssay.string("alpha.Zeta")
        #expect(try #require(model.entity(named: "Essay")).versionHash == expectedEssay.sha256)
    }

    @Test func theModelDigestAndChecksumCoverEveryEntityInNameOrder() throws {
        let model = try ManagedObjectModel {
            EntityDescription("b") { AttributeDescription("x", .string) }
            EntityDescription("B") { AttributeDescription("x", .string) }
        }
        let hashes = model.entityVersionHashesByName
        let upper = try #require(hashes["B"]), lower = try #require(hashes["b"])
        #expect(model.versionChecksum == Data(SHA256.hash(data: upper + lower)))
        #expect(model.versionHashesDigest == Data(SHA512.hash(data: Data("B".utf8) + upper + Data("b".utf8) + lower)))
        let metadata = model.storeMetadata(forConfigurationName: nil)
        #expect(metadata[PersistentStore.modelVersionChecksumKey] == .string(model.versionChecksum.base64EncodedString()))
        #expect(metadata[PersistentStore.modelVersionHashesVersionKey] == .integer(3))
    }

    @Test func whatDoesNotDecideStorageDoesNotChangeTheHash() throws {
        func model(_ title: AttributeDescription, rule: DeleteRule = .nullify, index: Bool = false) throws -> ManagedObjectModel {
            var book = EntityDescription("Book") {
                RelationshipDescription("author", toOne: "Author", inverse: "books", deleteRule: rule)
            }
            book.attributes.append(title)
            if index { book.indexes.append(FetchIndexDescription("byTitle", "title")) }
            return try ManagedObjectModel(entities: [
                EntityDescription("Author") { RelationshipDescription("books", toMany: "Book", inverse: "author") }, book,
            ])
        }
        let base = try model(AttributeDescription(name: "title", type: .string)).entityVersionHashesByName
        var title = AttributeDescription(name: "title", type: .string, defaultValue: "Untitled", renamingIdentifier: "name")
        title.regularExpression = ".*"
        title.minimumLength = 1
        title.userInfo = ["x": "y"]
        title.isIndexed = true
        #expect(try model(title).entityVersionHashesByName == base)
        #expect(try model(AttributeDescription(name: "title", type: .string), rule: .cascade, index: true).entityVersionHashesByName == base)
    }
}
