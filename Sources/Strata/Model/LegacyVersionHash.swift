import Crypto
import Foundation

// The version hashes Strata wrote before it computed Core Data's own (stores written then carry
// them): kept only to recognise such stores, whose hashes are replaced at their next save.

/// Builds the byte string a legacy hash is taken over: each field tagged by its position and
/// length-prefixed.
struct LegacyVersionHasher {
    private var bytes: [UInt8] = []

    init(kind: String) {
        append(kind)
    }

    mutating func append(_ string: String) {
        append(Data(string.utf8))
    }

    mutating func append(_ data: Data) {
        append(Int64(data.count))
        bytes += data
    }

    mutating func append(_ flag: Bool) {
        bytes.append(flag ? 1 : 0)
    }

    mutating func append(_ number: Int64) {
        withUnsafeBytes(of: number.littleEndian) { bytes += $0 }
    }

    func finalize() -> Data {
        Data(SHA256.hash(data: bytes))
    }
}

extension AttributeDescription {
    /// Strata's hash before Core Data's: name, optionality, transience, modifier and type.
    var legacyVersionHash: Data {
        var hasher = LegacyVersionHasher(kind: "attribute")
        hasher.append(name)
        hasher.append(isOptional)
        hasher.append(isTransient)
        hasher.append(false)  // read-only: Strata has no read-only attributes yet
        hasher.append(versionHashModifier ?? "")
        hasher.append(type.rawValue)
        return hasher.finalize()
    }
}

extension RelationshipDescription {
    /// Strata's hash before Core Data's; to-one counts were always 0 and 1 then.
    var legacyVersionHash: Data {
        var hasher = LegacyVersionHasher(kind: "relationship")
        hasher.append(name)
        hasher.append(isOptional)
        hasher.append(isTransient)
        hasher.append(false)  // read-only
        hasher.append(versionHashModifier ?? "")
        hasher.append(destinationEntityName)
        hasher.append(inverseName ?? "")
        hasher.append(isToMany)
        hasher.append(isToMany && isOrdered)
        hasher.append(Int64(isToMany ? minCount : 0))
        hasher.append(Int64(isToMany ? maxCount : 1))
        return hasher.finalize()
    }
}

extension EntityDescription {
    /// Strata's entity hash before Core Data's, given its parent's legacy hash.
    func computeLegacyVersionHash(superentityHash: Data?) -> Data {
        var hasher = LegacyVersionHasher(kind: "entity")
        hasher.append(name)
        hasher.append(superentityHash ?? Data())
        hasher.append(isAbstract)
        hasher.append(versionHashModifier ?? "")
        let properties = attributes.map { ($0.name, $0.legacyVersionHash) } + relationships.map { ($0.name, $0.legacyVersionHash) }
        for (_, hash) in properties.sorted(by: { $0.0 < $1.0 }) {
            hasher.append(hash)
        }
        return hasher.finalize()
    }
}
