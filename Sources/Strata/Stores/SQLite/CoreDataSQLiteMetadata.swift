import Foundation
import StrataFileFormats

/// A Core Data SQLite store's metadata (the `Z_METADATA` row: the store's UUID in `Z_UUID`, the
/// rest in `Z_PLIST`, a binary property list) as Strata's store metadata, and back
/// (`formats/coredata-sqlite-schema.md` §2). Core Data keeps the UUID out of the property list
/// and adds it as `NSStoreUUID` when it reads the row; so does this.
///
/// Core Data's keys that Strata has its own name for are renamed both ways (`NSStoreUUID` ↔
/// ``PersistentStore/storeUUIDKey``, the version hashes, identifiers, digest and checksum);
/// every other key — `NSPersistenceFrameworkVersion`, `_NSAutoVacuumLevel`, an app's own — is
/// kept as it is, so that a store keeps what Core Data and its app wrote into it. Core Data keeps
/// the model a store carries in its own table (`Z_MODELCACHE`); a store Strata wrote also carries
/// Strata's form of it here, under ``PersistentStore/modelCacheKey`` (a key Core Data leaves
/// alone, as it does an app's own), so that Strata's tools read the store without a model.
package enum CoreDataSQLiteMetadata {
    /// Core Data's key → Strata's.
    static let renamed: [String: String] = [
        "NSStoreUUID": PersistentStore.storeUUIDKey,
        "NSStoreType": PersistentStore.storeTypeKey,
        "NSStoreModelVersionHashes": PersistentStore.modelVersionHashesKey,
        "NSStoreModelVersionHashesVersion": PersistentStore.modelVersionHashesVersionKey,
        "NSStoreModelVersionHashesDigest": PersistentStore.modelVersionHashesDigestKey,
        "NSStoreModelVersionChecksumKey": PersistentStore.modelVersionChecksumKey,
        "NSStoreModelVersionIdentifiers": PersistentStore.modelVersionIdentifiersKey,
    ]

    /// Core Data's store type name for SQLite stores.
    static let storeType = "SQLite"

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Strata's metadata from a `Z_METADATA` row.
    ///
    /// The list is read with Strata's own binary property list reader: Foundation's
    /// `PropertyListSerialization` crashes on some damaged lists (found by the fuzz tests), and a
    /// damaged store must give an error, not a crash.
    package static func metadata(uuid: String, plist data: Data) throws -> [String: MetadataValue] {
        // The UUID becomes the host of every object URI: a damaged one must be refused here.
        guard ManagedObjectID.isValidStoreIdentifier(uuid) else {
            throw Failure(description: "the store's UUID (Z_METADATA.Z_UUID) is not one: \(uuid.debugDescription)")
        }
        let metadata: [String: MetadataValue]
        do {
            let list = try BinaryPropertyList(data)
            guard case .dictionary(let converted) = try Self.value(at: list.top, in: list, depth: 0) else {
                throw Failure(description: "the store's metadata is not a dictionary")
            }
            metadata = Dictionary(converted.map { (renamed[$0.key] ?? $0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        } catch let error as BinaryPropertyList.Failure {
            throw Failure(description: "the store's metadata is not a property list Strata can read: \(error.description)")
        }
        var result = metadata
        result[PersistentStore.storeUUIDKey] = .string(uuid)
        return result
    }

    /// The `Z_METADATA` row for Strata's metadata: the UUID, and a property list with Core Data's
    /// keys, its store type name, and the hash version Core Data's readers expect.
    package static func row(from metadata: [String: MetadataValue]) throws -> (uuid: String, plist: Data) {
        let back = Dictionary(uniqueKeysWithValues: renamed.map { ($1, $0) })
        var dictionary: [String: Any] = ["NSStoreType": storeType]
        let kept: Set<String> = [PersistentStore.storeTypeKey, PersistentStore.storeUUIDKey]
        for (key, value) in metadata where !kept.contains(key) {
            dictionary[back[key] ?? key] = Self.object(value)
        }
        dictionary["NSStoreModelVersionHashesVersion"] = dictionary["NSStoreModelVersionHashesVersion"] ?? 3
        let uuid = metadata[PersistentStore.storeUUIDKey]?.stringValue ?? UUID().uuidString
        do {
            return (uuid, try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0))
        } catch {
            throw Failure(description: "the metadata cannot be written as a property list: \(error.localizedDescription)")
        }
    }

    /// An object of the list as a metadata value; a container nested past any real metadata's
    /// depth (a damaged list can make one contain itself) is refused.
    private static func value(at index: Int, in list: BinaryPropertyList, depth: Int) throws -> MetadataValue {
        guard depth < 32 else { throw BinaryPropertyList.Failure(description: "containers nest too deep") }
        switch try list.object(at: index) {
        case .null: return .string("")
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .real(let number): return .double(number)
        case .date(let date): return .date(date)
        case .data(let data): return .data(data)
        case .string(let text): return .string(text)
        case .uid(let uid): return .integer(Int64(uid))
        case .array(let items): return .array(try items.map { try value(at: $0, in: list, depth: depth + 1) })
        case .dictionary(let entries):
            var dictionary: [String: MetadataValue] = [:]
            for (key, item) in entries {
                guard case .string(let name) = try list.object(at: key) else {
                    throw BinaryPropertyList.Failure(description: "a dictionary key is not a string")
                }
                dictionary[name] = try value(at: item, in: list, depth: depth + 1)
            }
            return .dictionary(dictionary)
        }
    }

    private static func object(_ value: MetadataValue) -> Any {
        switch value {
        case .string(let text): text
        case .integer(let number): NSNumber(value: number)
        case .double(let number): NSNumber(value: number)
        case .bool(let flag): NSNumber(value: flag)
        case .data(let data): data
        case .date(let date): date
        case .array(let items): items.map(object)
        case .dictionary(let entries): entries.mapValues(object)
        }
    }
}
