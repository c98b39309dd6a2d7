import Foundation
@testable import Strata
import Testing

/// Core Data's value encodings (`formats/coredata-sqlite-schema.md` §8) and its metadata
/// property list (§2), both ways.
@Suite struct CoreDataSQLiteEncodingTests {
    static func attribute(_ type: AttributeType, external: Bool = false) -> AttributeDescription {
        var attribute = AttributeDescription(name: "value", type: type, isOptional: true)
        attribute.allowsExternalBinaryDataStorage = external
        return attribute
    }

    @Test func valuesAreStoredAsCoreDataStoresThem() throws {
        let uuid = UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!
        let cases: [(AttributeType, AttributeValue, SQLValue)] = [
            (.integer16, .integer16(-7), .integer(-7)), (.integer64, .integer64(1 << 40), .integer(1 << 40)),
            (.boolean, .boolean(true), .integer(1)), (.double, .double(2.5), .real(2.5)), (.float, .float(0.5), .real(0.5)),
            (.decimal, .decimal(Decimal(string: "10.25")!), .real(10.25)),
            (.date, .date(Date(timeIntervalSinceReferenceDate: 737_057_646.84)), .real(737_057_646.84)),
            (.string, .string("Emma"), .text("Emma")), (.uri, .uri(URL(string: "https://example.com/a")!), .text("https://example.com/a")),
            (.uuid, .uuid(uuid), .blob(Data([0x6F, 0x96, 0x19, 0xFF, 0x8B, 0x86, 0xD0, 0x11, 0xB4, 0x2D, 0x00, 0xC0, 0x4F, 0xC9, 0x64, 0xFF]))),
            (.binaryData, .binaryData(Data([1, 2])), .blob(Data([1, 2]))), (.transformable, .transformable(Data([9])), .blob(Data([9]))),
        ]
        for (type, value, stored) in cases {
            let attribute = Self.attribute(type)
            #expect(CoreDataColumnValues.encode(value, for: attribute) == stored, "\(type)")
            #expect(try CoreDataColumnValues.decode(stored, for: attribute) == value, "\(type)")
        }
        #expect(CoreDataColumnValues.encode(nil, for: Self.attribute(.string)) == .null)
        #expect(try CoreDataColumnValues.decode(.null, for: Self.attribute(.string)) == nil)
    }

    @Test func externalStorageHasItsPrefixes() throws {
        let attribute = Self.attribute(.binaryData, external: true)
        #expect(CoreDataColumnValues.encode(.binaryData(Data([7, 8])), for: attribute) == .blob(Data([1, 7, 8])))
        #expect(try CoreDataColumnValues.decode(.blob(Data([1, 7, 8])), for: attribute) == .binaryData(Data([7, 8])))
        let name = "0F9619FF-8B86-D011-B42D-00C04FC964FF"
        let reference = SQLValue.blob(Data([2]) + Data(name.utf8) + Data([0]))
        var asked: [String] = []
        let external = try CoreDataColumnValues.decode(reference, for: attribute) { file in
            asked.append(file)
            return .binaryData(Data([42]))
        }
        #expect(external == .binaryData(Data([42])))
        #expect(asked == [name])
        #expect(throws: CoreDataColumnValues.Failure.self) { try CoreDataColumnValues.decode(reference, for: attribute) }
    }

    /// A lightweight migration copies values as they are (migration page §4): read as an app would.
    @Test func valuesAMigrationLeftInAnotherClassReadAsAnAppReadsThem() throws {
        #expect(try CoreDataColumnValues.decode(.real(2.5), for: Self.attribute(.integer32)) == .integer32(2))
        #expect(try CoreDataColumnValues.decode(.integer(5), for: Self.attribute(.boolean)) == .boolean(true))
        #expect(try CoreDataColumnValues.decode(.integer(3), for: Self.attribute(.double)) == .double(3))
        let tooWide = #expect(throws: CoreDataColumnValues.Failure.self) {
            try CoreDataColumnValues.decode(.integer(70_000), for: Self.attribute(.integer16))
        }
        #expect(tooWide?.description == "value: a stored INTEGER does not fit a Integer 16 attribute")
        #expect(throws: CoreDataColumnValues.Failure.self) { try CoreDataColumnValues.decode(.text("x"), for: Self.attribute(.date)) }
        #expect(throws: CoreDataColumnValues.Failure.self) { try CoreDataColumnValues.decode(.blob(Data([1])), for: Self.attribute(.uuid)) }
    }

    @Test(.enabled(if: Fixtures.canReadSharedSQLiteStores, "the shared SQLite fixtures (or python3) are not here"),
          arguments: CoreDataSQLiteSchemaTests.stores)
    func theFixtureStoresMetadataReadsAndWritesBack(_ store: String) async throws {
        let url = Fixtures.sharedSQLiteStores.appendingPathComponent(store)
        let (plist, uuid) = try await CoreDataStoreReader.metadataPlist(ofStoreAt: url)
        let metadata = try CoreDataSQLiteMetadata.metadata(uuid: uuid, plist: plist)
        #expect(metadata[PersistentStore.storeUUIDKey] == .string(uuid))
        #expect(metadata[PersistentStore.storeTypeKey] == .string("SQLite"))
        let expected = try await CoreDataStoreReader.metadata(ofStoreAt: url)
        guard case .dictionary(let hashes)? = metadata[PersistentStore.modelVersionHashesKey] else {
            Issue.record("\(store): no hashes")
            return
        }
        #expect(hashes.mapValues { value -> String in
            if case .data(let data) = value { return data.map { String(format: "%02x", $0) }.joined() }
            return ""
        } == expected.hashes)
        #expect(metadata["NSPersistenceFrameworkVersion"] != nil, "keys Strata has no name for are kept")

        // Written back, Core Data's keys again, as Python's plistlib (and so Core Data) reads them.
        let (writtenUUID, written) = try CoreDataSQLiteMetadata.row(from: metadata)
        #expect(writtenUUID == uuid)
        #expect(try CoreDataSQLiteMetadata.metadata(uuid: writtenUUID, plist: written) == metadata)
        let python = try await CoreDataStoreReader.readPlist(written)
        #expect(python["NSStoreUUID"] == nil, "Core Data keeps the UUID in Z_UUID, not in the list")
        #expect(python["NSStoreType"] as? String == "SQLite")
        #expect(python["NSStoreModelVersionHashes"] as? [String: String] == expected.hashes)
        #expect(python["NSStoreModelVersionHashesVersion"] as? Int == 3)
    }
}
