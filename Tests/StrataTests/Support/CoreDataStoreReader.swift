import Foundation
import StrataTestSupport

/// Reads a Core Data SQLite store's metadata and cached model through `Tests/Scripts/read-coredata-store.py`
/// (Python's sqlite3, plistlib and zlib), for tests that hold Strata to what Core Data wrote.
enum CoreDataStoreReader {
    struct Metadata: Decodable {
        /// Entity name → version hash, in hex.
        var hashes: [String: String]
        /// `NSStoreModelVersionHashesDigest` (base64), when the store has it.
        var digest: String?
        /// `NSStoreModelVersionChecksumKey` (base64), when the store has it.
        var checksum: String?
        /// `NSPersistenceFrameworkVersion`: the Core Data that wrote the store.
        var framework: Int?
    }

    static let script = Fixtures.packageRoot.appendingPathComponent("Tests/Scripts/read-coredata-store.py")

    /// Whether `python3` is here (sqlite3, plistlib and zlib are in its standard library).
    static var isAvailable: Bool { Fixtures.hasPython3 }

    /// The store's `Z_METADATA`, read from a copy so the fixture is never touched.
    static func metadata(ofStoreAt store: URL) async throws -> Metadata {
        let copy = try copied(store)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        return try JSONDecoder().decode(Metadata.self, from: await run([script.path, "metadata", copy.path]))
    }

    /// The model cached in the store's `Z_MODELCACHE`, written as an `.xcdatamodel` into `directory`.
    static func cachedModel(ofStoreAt store: URL, into directory: URL) async throws -> URL {
        let copy = try copied(store)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let model = directory.appendingPathComponent("Cached.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        _ = try await run([script.path, "model", copy.path, model.appendingPathComponent("contents").path])
        return model
    }

    struct Schema: Decodable {
        struct Object: Decodable {
            var type: String
            var name: String
            var sql: String
        }
        struct Entity: Decodable, Equatable {
            var number: Int
            var name: String
            var `super`: Int
        }
        var objects: [Object]
        var entities: [Entity]
    }

    /// The store's `CREATE` statements (from `sqlite_master`) and `Z_PRIMARYKEY` entity rows.
    static func schema(ofStoreAt store: URL) async throws -> Schema {
        let copy = try copied(store)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        return try JSONDecoder().decode(Schema.self, from: await run([script.path, "schema", copy.path]))
    }

    /// The raw bytes of the store's `Z_METADATA.Z_PLIST`, and its `Z_UUID`.
    static func metadataPlist(ofStoreAt store: URL) async throws -> (plist: Data, uuid: String) {
        let copy = try copied(store)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let out = copy.deletingLastPathComponent().appendingPathComponent("plist.bin")
        let printed = try JSONDecoder().decode([String: String].self, from: await run([script.path, "plist", copy.path, out.path]))
        return (try Data(contentsOf: out), printed["uuid"] ?? "")
    }

    /// A metadata property list as Python's plistlib reads it: keys to values, bytes in hex.
    static func readPlist(_ data: Data) async throws -> [String: Any] {
        let file = try Fixtures.temporaryDirectory().appendingPathComponent("metadata.plist")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try data.write(to: file)
        return try JSONSerialization.jsonObject(with: await run([script.path, "readplist", file.path])) as? [String: Any] ?? [:]
    }

    /// The raw bytes of the store's `Z_MODELCACHE.Z_CONTENT`.
    static func modelCache(ofStoreAt store: URL) async throws -> Data {
        let copy = try copied(store)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let out = copy.deletingLastPathComponent().appendingPathComponent("cache.bin")
        _ = try await run([script.path, "cache", copy.path, out.path])
        return try Data(contentsOf: out)
    }

    /// A raw value of a store's column, as Python's sqlite3 reads it.
    enum RawValue: Decodable, Equatable {
        case null, integer(Int64), real(Double), text(String), blob(Data)

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() { self = .null; return }
            if let number = try? container.decode(Int64.self) { self = .integer(number); return }
            if let text = try? container.decode(String.self) { self = .text(text); return }
            let tagged = try container.decode([String: AnyScalar].self)
            if case .double(let number)? = tagged["real"] { self = .real(number); return }
            if case .string(let hex)? = tagged["blob"] { self = .blob(Data(hexString: hex)); return }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a raw SQLite value")
        }
    }

    enum AnyScalar: Decodable {
        case double(Double), string(String)
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Double.self) { self = .double(number) } else { self = .string(try container.decode(String.self)) }
        }
    }

    /// Every row of every entity and join table: table → rows of column → value.
    static func rows(ofStoreAt store: URL) async throws -> [String: [[String: RawValue]]] {
        let copy = try copied(store)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        return try JSONDecoder().decode([String: [[String: RawValue]]].self, from: await run([script.path, "rows", copy.path]))
    }

    /// A copy of the store with its `-wal` and `-shm` files, in a new temporary directory.
    static func copied(_ store: URL) throws -> URL {
        let directory = try Fixtures.temporaryDirectory()
        for suffix in ["", "-wal", "-shm"] {
            let source = URL(fileURLWithPath: store.path + suffix)
            guard FileManager.default.fileExists(atPath: source.path) else { continue }
            try FileManager.default.copyItem(at: source, to: directory.appendingPathComponent(source.lastPathComponent))
        }
        return directory.appendingPathComponent(store.lastPathComponent)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private static func run(_ arguments: [String]) async throws -> Data {
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3"] + arguments)
        guard result.status == 0 else {
            throw Failure(description: "python3 \(arguments.joined(separator: " ")): " + String(decoding: result.errors, as: UTF8.self))
        }
        return result.output
    }
}

extension Data {
    /// Bytes from pairs of hex digits.
    init(hexString: String) {
        var bytes: [UInt8] = []
        var iterator = hexString.utf8.makeIterator()
        func digit(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : (c | 0x20) - 87 }
        while let high = iterator.next(), let low = iterator.next() { bytes.append(digit(high) << 4 | digit(low)) }
        self.init(bytes)
    }
}
