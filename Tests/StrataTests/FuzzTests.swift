import Foundation
import StrataFileFormats
@testable import Strata
import StrataTestSupport
import Testing

/// Everything that parses input a user hands Strata, fed mutated real input: model files,
/// predicate format strings, binary store files, Core Data model caches and metadata, SQLite
/// store files. Each case must end in a value or a typed
/// error, never a trap. The seed is printed first (a trap ends the process before any report);
/// `STRATA_FUZZ_SEED` replays a run, `STRATA_FUZZ_CASES` sets the number of cases per target.
@Suite struct FuzzTests {
    static let seed = ProcessInfo.processInfo.environment["STRATA_FUZZ_SEED"].flatMap(UInt64.init)
        ?? UInt64.random(in: 0...UInt64.max)
    static let cases = ProcessInfo.processInfo.environment["STRATA_FUZZ_CASES"].flatMap(Int.init) ?? 3_000

    static func announce(_ target: String) {
        print("FuzzTests.\(target): STRATA_FUZZ_SEED=\(seed) STRATA_FUZZ_CASES=\(cases)")
    }

    /// The model files mutated: our own, and the real ones beside the project when present.
    static func modelFiles() throws -> [Data] {
        var files = [
            Fixtures.models.appendingPathComponent("Everything.xcdatamodel/contents"),
            Fixtures.models.appendingPathComponent("Library.xcdatamodel/contents"),
        ]
        for bundle in Fixtures.sharedBundles() {
            let versions = try FileManager.default.contentsOfDirectory(atPath: bundle.path).filter { $0.hasSuffix(".xcdatamodel") }
            files += versions.map { bundle.appendingPathComponent($0).appendingPathComponent("contents") }
        }
        return try files.map { try Data(contentsOf: $0) }
    }

    @Test func theModelReaderNeverTraps() throws {
        Self.announce("theModelReaderNeverTraps")
        let inputs = try Self.modelFiles()
        var random = SplitMix64(seed: Self.seed)
        var loaded = 0, refused = 0
        let file = URL(fileURLWithPath: "/fuzz/contents")
        for _ in 0..<Self.cases {
            let input = inputs[Int.random(in: 0..<inputs.count, using: &random)]
            let mutated = Mutator.mutateXML(input, using: &random)
            do {
                _ = try ModelFileReader(file: file).read(mutated)
                loaded += 1
            } catch is ModelFileError {
                refused += 1
            }
        }
        // Both outcomes must be common, or the mutations are too timid or too wild to test much.
        #expect(loaded > Self.cases / 20, "seed \(Self.seed)")
        #expect(refused > Self.cases / 20, "seed \(Self.seed)")
    }

    static let predicates = [
        "title BEGINSWITH[cd] 'e' AND pages > 300", "ANY authors.name == 'Jane' OR NOT (pages <= 10)",
        "SUBQUERY(books, $b, $b.pages > 100).@count > 2", "name IN {'a', 'b', 'c'} AND age BETWEEN {18, 65}",
        "date >= CAST(0, 'NSDate') && flag == YES", "title LIKE[c] '*a?c*' || title MATCHES '^[A-Z].*'",
        "%K == %@ AND pages > %d", "books.@sum.pages > 1000 AND author.name != nil", "TRUEPREDICATE",
        "tags.@count == 0 OR ALL tags.label CONTAINS 'x'", "FUNCTION(name, 'uppercase') == 'A'",
    ]

    @Test func thePredicateParserNeverTraps() {
        Self.announce("thePredicateParserNeverTraps")
        var random = SplitMix64(seed: Self.seed &+ 1)
        var parsed = 0, refused = 0
        for _ in 0..<Self.cases {
            let base = Self.predicates[Int.random(in: 0..<Self.predicates.count, using: &random)]
            let mutated = Mutator.mutateText(base, using: &random)
            for placeholders in [false, true] {
                do {
                    _ = placeholders
                        ? try FetchPredicate(formatWithPlaceholders: mutated)
                        : try FetchPredicate(format: mutated, argumentArray: ["title", "x", 3])
                    parsed += 1
                } catch is FetchPredicateError {
                    refused += 1
                } catch {
                    Issue.record("seed \(Self.seed): '\(mutated)' threw \(type(of: error)), not a FetchPredicateError")
                }
            }
        }
        #expect(parsed > 0 && refused > 0, "seed \(Self.seed)")
    }

    /// Core Data's model cache: mutated raw DEFLATE streams and mutated keyed archives. The
    /// inputs are the caches of the shared fixture stores when they are here, and always a keyed
    /// archive Foundation writes.
    @Test func theModelCacheReaderNeverTraps() async throws {
        Self.announce("theModelCacheReaderNeverTraps")
        var deflated: [Data] = []
        if Fixtures.canReadSharedSQLiteStores {
            for store in CoreDataStoreHashTests.stores.map(\.store) {
                deflated.append(try await CoreDataStoreReader.modelCache(ofStoreAt: Fixtures.sharedSQLiteStores.appendingPathComponent(store)))
            }
        }
        var archives = try deflated.map { try RawDeflate.inflate($0, maximumSize: 1 << 24) }
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.outputFormat = .binary
        archiver.encode(["NSEntities": ["Book": ["NSEntityName": "Book", "count": 3]], "list": [1.5, "x", true]] as NSDictionary, forKey: "root")
        archiver.finishEncoding()
        archives.append(archiver.encodedData)
        var random = SplitMix64(seed: Self.seed &+ 3)
        var refused = 0
        for _ in 0..<Self.cases {
            let useDeflated = !deflated.isEmpty && Bool.random(using: &random)
            let inputs = useDeflated ? deflated : archives
            let mutated = Mutator.mutateBinary(inputs[Int.random(in: 0..<inputs.count, using: &random)], using: &random)
            do {
                _ = useDeflated ? try CoreDataModelCache.model(fromDeflated: mutated) : try CoreDataModelCache.model(fromArchive: mutated)
            } catch is ModelFileError {
                refused += 1
            }
        }
        #expect(refused > 0, "seed \(Self.seed)")
    }

    /// XML store files (Core Data's `NSXMLStoreType`), mutated: each opens and loads, or is a
    /// ``StoreError``; fewer cases than the in-memory targets, as each one writes a file.
    @Test func theXMLStoreReaderNeverTraps() async throws {
        Self.announce("theXMLStoreReaderNeverTraps")
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = directory.appendingPathComponent("Library.xml")
        try await XMLStoreTests.writeLibrary(at: original)
        let input = try Data(contentsOf: original)
        let model = try XMLStoreTests.model()
        var random = SplitMix64(seed: Self.seed &+ 11)
        var read = 0, refused = 0
        for index in 0..<max(1, Self.cases / 30) {
            let url = directory.appendingPathComponent("Case\(index).xml")
            try Mutator.mutateXML(input, using: &random).write(to: url)
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            do {
                let store = try await coordinator.addPersistentStore(type: .xml, at: url, options: [PersistentStoreOption.readOnly: true])
                _ = try await backgroundContext(coordinator).perform { try $0.count(for: FetchRequest<ManagedObject>(entityName: "Book")) }
                try await coordinator.removePersistentStore(store)
                read += 1
            } catch is StoreError {
                refused += 1
            } catch is PersistenceError {
                refused += 1
            }
            try? FileManager.default.removeItem(at: url)
        }
        #expect(read + refused == max(1, Self.cases / 30) && refused > 0, "seed \(Self.seed)")
    }

    /// Core Data's mapping models: Xcode's `xcmapping.xml`, compiled `.cdm` archives, and the
    /// archived expressions both hold, mutated, then (when they still read) checked against the
    /// models they map. Inputs: the fixtures' mapping models when they are here, and always an
    /// expression archive Strata writes.
    @Test func theMappingModelReadersNeverTrap() throws {
        Self.announce("theMappingModelReadersNeverTrap")
        var xml: [Data] = [], compiled: [Data] = []
        var models: (ManagedObjectModel, ManagedObjectModel)?
        if Fixtures.hasSharedCompiledModels {
            let root = CoreDataMappingModelTests.plus
            xml.append(try Data(contentsOf: CoreDataMappingModelTests.xcodeMapping.appendingPathComponent("xcmapping.xml")))
            compiled.append(try Data(contentsOf: CoreDataMappingModelTests.compiledMapping))
            let bundle = try ModelBundle(contentsOf: root.appendingPathComponent("Fixtures/SampleModel.momd"))
            models = (try bundle.version(named: "SampleModel2").model, try bundle.version(named: "SampleModel3").model)
        }
        let expressions = try [
            #"FUNCTION($manager, "destinationInstancesForEntityMappingNamed:sourceInstances:", "AToB", $source.items)"#,
            #"FUNCTION($source.name, "stringByAppendingString:", " ") + now()"#, "{1, 'two', 3.5, $source.@count}",
        ].map { try ValueExpression(format: $0).keyedArchive() }
        var random = SplitMix64(seed: Self.seed &+ 7)
        let file = URL(fileURLWithPath: "/fuzz/xcmapping.xml")
        var refused = 0, read = 0
        for _ in 0..<Self.cases {
            let pick = Int.random(in: 0..<3, using: &random)
            do {
                switch pick {
                case 0 where !xml.isEmpty:
                    let mapping = try CoreDataMappingFile(xcodeMapping: Mutator.mutateXML(xml[0], using: &random), file: file)
                    if let (source, destination) = models { _ = try mapping.mappingModel(from: source, to: destination, policies: [:], requiringPolicies: false) }
                case 1 where !compiled.isEmpty:
                    let mapping = try CoreDataMappingFile(compiledMapping: Mutator.mutateBinary(compiled[0], using: &random), file: file)
                    if let (source, destination) = models { _ = try mapping.mappingModel(from: source, to: destination, policies: [:], requiringPolicies: false) }
                default:
                    let input = expressions[Int.random(in: 0..<expressions.count, using: &random)]
                    _ = try ValueExpression(keyedArchive: Mutator.mutateBinary(input, using: &random))
                }
                read += 1
            } catch is ModelFileError {
                refused += 1
            } catch is MigrationError {
                refused += 1
            } catch is FetchPredicateError {
                refused += 1
            }
        }
        #expect(refused > Self.cases / 20, "seed \(Self.seed)")
        #expect(read > 0, "seed \(Self.seed)")
    }

    /// Core Data's store metadata (`Z_METADATA.Z_PLIST`), read through Foundation's property list
    /// parser: the fixture stores' lists when they are here, and always one Strata writes.
    @Test func theStoreMetadataReaderNeverTraps() async throws {
        Self.announce("theStoreMetadataReaderNeverTraps")
        var inputs = [try CoreDataSQLiteMetadata.row(from: try libraryModel().storeMetadata(forConfigurationName: nil)).plist]
        if Fixtures.canReadSharedSQLiteStores {
            for store in CoreDataSQLiteSchemaTests.stores {
                inputs.append(try await CoreDataStoreReader.metadataPlist(ofStoreAt: Fixtures.sharedSQLiteStores.appendingPathComponent(store)).plist)
            }
        }
        var random = SplitMix64(seed: Self.seed &+ 4)
        var refused = 0
        for _ in 0..<Self.cases {
            let mutated = Mutator.mutateBinary(inputs[Int.random(in: 0..<inputs.count, using: &random)], using: &random)
            do {
                _ = try CoreDataSQLiteMetadata.metadata(uuid: "fuzz", plist: mutated)
            } catch is CoreDataSQLiteMetadata.Failure {
                refused += 1
            }
        }
        #expect(refused > 0, "seed \(Self.seed)")
    }

    @Test func theBinaryStoreReaderNeverTraps() async throws {
        Self.announce("theBinaryStoreReaderNeverTraps")
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = try Data(contentsOf: try await BinaryStoreTests.savedStore(in: directory))
        let model = try libraryModel()
        var random = SplitMix64(seed: Self.seed &+ 2)
        let url = directory.appendingPathComponent("Mutated.store")
        var opened = 0, refused = 0
        // Each case writes and reads a file: a tenth as many keep the run to seconds.
        for _ in 0..<max(1, Self.cases / 10) {
            try Mutator.mutateBinary(original, using: &random).write(to: url)
            // Opening a store decodes into columns, the tools into rows: both decoders read
            // every mutated file, and must agree on it, value for value, or both refuse it.
            let byRows = Result { try Self.readRows(url) }
            let byColumns = Result { try Self.readColumns(url) }
            switch (byRows, byColumns) {
            case (.success(let rows), .success(let columns)):
                let agree = rows.map { $0.map(\.0) } == columns.map(\.0)
                    && rows.map { $0.map(\.1) } == columns.map { table in (0..<table.1.count).map { table.1.row(at: $0) } }
                #expect(agree, "the row and column decoders read different objects, seed \(Self.seed)")
                do {
                    let header = try Self.header(url)
                    _ = try header.schema.entities.map { try SlotMapping(file: $0, model: model, url: url) }
                    opened += 1
                } catch is StoreError {
                    refused += 1
                }
            case (.failure(let error), .failure(let other)):
                #expect(error is StoreError && other is StoreError, "seed \(Self.seed)")
                refused += 1
            default:
                Issue.record("the row and column decoders disagree on a mutated file, seed \(Self.seed)")
            }
        }
        #expect(refused > 0, "seed \(Self.seed)")
    }

    /// The binary store's history records (format version 2), their content mutated: decoding
    /// ends in transactions or a ``ByteReader/Failure``, which the reader turns into a
    /// `StoreError`.
    @Test func theHistoryDecoderNeverTraps() throws {
        Self.announce("theHistoryDecoderNeverTraps")
        let model = try libraryModel()
        let schema = StoreSchema(model: model, configuration: nil)
        let spaces = schema.entities.map { ObjectIDSpace.make(store: "fuzz", entityName: $0.name) }
        let indexes = Dictionary(uniqueKeysWithValues: schema.entities.enumerated().map { ($1.name, $0) })
        func id(_ entity: String, _ number: Int64) -> ManagedObjectID {
            ManagedObjectID(entityName: entity, key: .permanent(store: "fuzz", reference: number))
        }
        func transaction(_ number: Int64) -> PersistentHistoryTransaction {
            let insert = PersistentHistoryChange(
                changeID: 3 * number, changedObjectID: id("Book", 1), changeType: .insert, updatedProperties: nil, tombstone: nil,
                transactionNumber: number)
            let update = PersistentHistoryChange(
                changeID: 3 * number + 1, changedObjectID: id("Author", 2), changeType: .update, updatedProperties: ["name", "books"],
                tombstone: nil, transactionNumber: number)
            let tombstone: [String: AttributeValue] = ["title": .string("Chapter \(number)")]
            let delete = PersistentHistoryChange(
                changeID: 3 * number + 2, changedObjectID: id("Chapter", 3), changeType: .delete, updatedProperties: nil,
                tombstone: tombstone, transactionNumber: number)
            return PersistentHistoryTransaction(
                transactionNumber: number, storeID: "fuzz", timestamp: Date(timeIntervalSinceReferenceDate: Double(number)),
                author: number == 2 ? nil : "author", contextName: "context", bundleID: nil, processID: "process",
                changes: [insert, update, delete])
        }
        let transactions = [transaction(1), transaction(2), transaction(3)]
        var writer = ByteWriter()
        for transaction in transactions { try writer.historyTransaction(transaction, entityIndexes: indexes) }
        var reader = ByteReader(writer.bytes)
        #expect(try transactions.map { _ in try reader.historyTransaction(schema: schema, spaces: spaces, store: "fuzz") } == transactions)

        var random = SplitMix64(seed: Self.seed &+ 7)
        var refused = 0
        for _ in 0..<Self.cases {
            var bytes = writer.bytes
            for _ in 0..<Int.random(in: 1...4, using: &random) { Mutator.mutate(&bytes, using: &random) }
            var reader = ByteReader(bytes)
            do {
                while !reader.isAtEnd { _ = try reader.historyTransaction(schema: schema, spaces: spaces, store: "fuzz") }
            } catch is ByteReader.Failure {
                refused += 1
            }
        }
        #expect(refused > 0, "seed \(Self.seed)")
    }

    private static func header(_ url: URL) throws -> BinaryStoreHeader {
        var reader = try BinaryStoreReader(url: url)
        defer { reader.close() }
        return try reader.readHeader()
    }

    /// Every object of a binary store file as rows, by schema entity: what the tools read.
    private static func readRows(_ url: URL) throws -> [[(Int64, Row)]] {
        var reader = try BinaryStoreReader(url: url)
        defer { reader.close() }
        let header = try reader.readHeader()
        var rows = [[(Int64, Row)]](repeating: [], count: header.schema.entities.count)
        try reader.readObjects(schema: header.schema, storeIdentifier: "fuzz") { rows[$0].append(contentsOf: $1) }
        return rows
    }

    /// The same file decoded into columns: what opening a store reads.
    private static func readColumns(_ url: URL) throws -> [([Int64], RowColumns)] {
        var reader = try BinaryStoreReader(url: url)
        defer { reader.close() }
        let header = try reader.readHeader()
        return try reader.readColumns(schema: header.schema, storeIdentifier: "fuzz")
    }

    /// A SQLite store with bytes overwritten here and there (SQLite keeps no checksums, so some
    /// damage reads back as other values), or cut to whole pages: opened and read whole through
    /// typed properties, every case ends in values or a typed error.
    @Test func theSQLiteStoreNeverTraps() async throws {
        Self.announce("theSQLiteStoreNeverTraps")
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = [UInt8](try await SQLiteStoreDamageTests.savedBytes(in: directory))
        var random = SplitMix64(seed: Self.seed &+ 3)
        var read = 0, refused = 0
        // Each case opens a coordinator on a file of its own: a thirtieth as many cases.
        for _ in 0..<max(1, Self.cases / 30) {
            var bytes = original
            if Int.random(in: 0..<10, using: &random) == 0 {
                bytes.removeLast(4096 * Int.random(in: 1...max(1, bytes.count / 4096 - 1), using: &random))
            } else {
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
            }
            let url = try SQLiteStoreDamageTests.damagedCopy(Data(bytes), in: directory)
            if try await SQLiteStoreDamageTests.readsBack(url) { read += 1 } else { refused += 1 }
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }
        #expect(read + refused == max(1, Self.cases / 30), "seed \(Self.seed)")
    }
}

/// Seeded mutations of real input: byte flips, truncations, deletions, duplications, bytes
/// that are not UTF-8, and (for XML) attributes inserted into tags.
enum Mutator {
    static func mutateXML(_ data: Data, using random: inout SplitMix64) -> Data {
        var bytes = [UInt8](data)
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            if Int.random(in: 0..<3, using: &random) == 0 {
                insertAttribute(into: &bytes, using: &random)
            } else {
                mutate(&bytes, using: &random)
            }
        }
        return Data(bytes)
    }

    static func mutateText(_ text: String, using random: inout SplitMix64) -> String {
        var bytes = [UInt8](text.utf8)
        for _ in 0..<Int.random(in: 1...3, using: &random) { mutate(&bytes, using: &random) }
        // Predicates arrive as Swift strings: invalid UTF-8 is repaired before the parser sees it.
        return String(decoding: bytes, as: UTF8.self)
    }

    static func mutateBinary(_ data: Data, using random: inout SplitMix64) -> Data {
        var bytes = [UInt8](data)
        mutate(&bytes, using: &random)
        return Data(bytes)
    }

    /// Attribute names and values Xcode writes, and some it never would.
    static let attributes = [
        "attributeType", "optional", "transient", "defaultValueString", "minValueString", "maxValueString",
        "minCount", "maxCount", "toMany", "ordered", "destinationEntity", "inverseName", "parentEntity", "name",
        "derived", "derivationExpression", "deletionRule", "composite", "elementID", "isAbstract",
    ]
    static let values = [
        "", "YES", "NO", "0", "-1", "0.0", "1e400", "Integer 16", "Undefined", "Composite", "Object ID", "Nope",
        "99999999999999999999", "Cascade", "&amp;", "x.@count", "\u{FEFF}", "%@",
    ]

    static func insertAttribute(into bytes: inout [UInt8], using random: inout SplitMix64) {
        let tags = bytes.indices.filter { bytes[$0] == UInt8(ascii: "<") && $0 + 1 < bytes.count && bytes[$0 + 1] != UInt8(ascii: "/") }
        guard let tag = tags.randomElement(using: &random),
            let space = bytes[tag...].firstIndex(where: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: ">") })
        else { return }
        let name = attributes.randomElement(using: &random)!  // the list is not empty
        let value = values.randomElement(using: &random)!  // the list is not empty
        bytes.insert(contentsOf: Array(" \(name)=\"\(value)\"".utf8), at: space)
    }

    static func mutate(_ bytes: inout [UInt8], using random: inout SplitMix64) {
        guard !bytes.isEmpty else { return }
        let at = Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<7, using: &random) {
        case 0: bytes[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
        case 1: bytes[at] = UInt8.random(in: 0...255, using: &random)
        case 2: bytes.removeSubrange(at...)
        case 3: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...64, using: &random)))
        case 4:
            let end = min(bytes.count, at + Int.random(in: 1...64, using: &random))
            bytes.insert(contentsOf: bytes[at..<end], at: at)
        case 5:
            // Bytes that are never valid UTF-8, or a sequence cut short.
            let bad: [[UInt8]] = [[0xFF], [0xC0, 0x80], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80], [0x00]]
            bytes.insert(contentsOf: bad.randomElement(using: &random)!, at: at)  // the list is not empty
        default:
            let value = values.randomElement(using: &random)!  // the list is not empty
            bytes.insert(contentsOf: Array(value.utf8), at: at)
        }
    }
}
