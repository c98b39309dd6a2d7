import Crypto
import Foundation

/// Builds the byte string a version hash is taken over: each field tagged by its position and
/// length-prefixed, so that no two different descriptions share bytes.
struct VersionHasher {
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
    /// SHA-256 over what decides how the attribute is stored: its name, optionality,
    /// transience, type and version hash modifier. Default values, validation rules, class
    /// names and the renaming identifier do not change it.
    public var versionHash: Data {
        var hasher = VersionHasher(kind: "attribute")
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
    /// SHA-256 over what decides how the relationship is stored: its name, optionality,
    /// transience, destination, inverse, cardinality, order and version hash modifier. The
    /// delete rule and the renaming identifier do not change it.
    public var versionHash: Data {
        var hasher = VersionHasher(kind: "relationship")
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
    /// The entity's version hash, given its parent's: SHA-256 over its name, its parent's
    /// hash, abstractness, version hash modifier and its own properties' hashes (sorted, so
    /// that their order in a file does not matter).
    func computeVersionHash(superentityHash: Data?) -> Data {
        var hasher = VersionHasher(kind: "entity")
        hasher.append(name)
        hasher.append(superentityHash ?? Data())
        hasher.append(isAbstract)
        hasher.append(versionHashModifier ?? "")
        let properties = attributes.map { ($0.name, $0.versionHash) } + relationships.map { ($0.name, $0.versionHash) }
        for (_, hash) in properties.sorted(by: { $0.0 < $1.0 }) {
            hasher.append(hash)
        }
        return hasher.finalize()
    }
}
