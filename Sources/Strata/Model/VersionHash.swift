import Crypto
import Foundation

// Core Data's version hashes, byte for byte, so that a store Strata writes opens in an app's Core
// Data and a store Core Data wrote is matched to its model version by its metadata alone.
// The algorithm, checked against real stores, is `formats/coredata-version-hashes.md` in the
// shared folder beside the project; each step below names the item of that page it follows.

/// The bytes a Core Data version hash is taken over: fields concatenated with no lengths or
/// separators, integers little-endian.
struct CoreDataHasher {
    private var bytes: [UInt8] = []

    mutating func append(_ string: String) {
        bytes += Array(string.utf8)
    }

    mutating func append(_ hash: Data) {
        bytes += hash
    }

    mutating func append(uint16 value: UInt16) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    mutating func append(uint32 value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    mutating func append(int32 value: Int32) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    mutating func append(byte: UInt8) {
        bytes.append(byte)
    }

    func sha256() -> Data {
        Data(SHA256.hash(data: bytes))
    }

    func sha512() -> Data {
        Data(SHA512.hash(data: bytes))
    }

    /// The property part shared by attributes and relationships: name, a 16-bit flags word
    /// (1 optional, 2 transient, 4 read-only), then the version hash modifier.
    static func propertyHash(name: String, isOptional: Bool, isTransient: Bool, isReadOnly: Bool, modifier: String?) -> Data {
        var hasher = CoreDataHasher()
        hasher.append(name)
        hasher.append(uint16: (isOptional ? 1 : 0) | (isTransient ? 2 : 0) | (isReadOnly ? 4 : 0))
        if let modifier { hasher.append(modifier) }
        return hasher.sha256()
    }

    /// A count as Core Data hashes it: 32 bits, keeping the low ones of a larger value (−1 is
    /// `FF FF FF FF`).
    static func count(_ value: Int) -> UInt32 {
        UInt32(truncatingIfNeeded: value)
    }
}

extension AttributeType {
    /// The number Core Data gives the type (`NSAttributeType`), which its version hashes carry.
    public var coreDataNumber: Int32 {
        switch self {
        case .integer16: 100
        case .integer32: 200
        case .integer64: 300
        case .decimal: 400
        case .double: 500
        case .float: 600
        case .string: 700
        case .boolean: 800
        case .date: 900
        case .binaryData: 1000
        case .uuid: 1100
        case .uri: 1200
        case .transformable: 1800
        case .objectID: 2000
        case .undefined: 0
        case .composite: 2100
        }
    }
}

extension AttributeDescription {
    /// Core Data's version hash of the attribute (SHA-256).
    ///
    /// A stored attribute hashes its name, optionality, transience, version hash modifier, type
    /// number, and whether it allows external binary storage and preserves its value in history
    /// on deletion. A derived attribute hashes its derivation expression only, in the form
    /// Core Data prints it (``coreDataDerivationFormat``); a composite, its elements' hashes. Default values, validation rules,
    /// `userInfo`, class names and the renaming identifier do not change it.
    public var versionHash: Data {
        var hasher = CoreDataHasher()
        if let derivation = coreDataDerivationFormat {
            hasher.append(derivation)
            return hasher.sha256()
        }
        if type == .composite {
            // Its flattened, stored elements' hashes in name order; not its own.
            for element in flattenedCompositeElements.sorted(by: { EntityDescription.codeUnitOrder($0.name, $1.name) }) {
                hasher.append(element.versionHash)
            }
            return hasher.sha256()
        }
        hasher.append(
            CoreDataHasher.propertyHash(
                name: name, isOptional: isOptional, isTransient: isTransient, isReadOnly: false, modifier: versionHashModifier))
        hasher.append(int32: type.coreDataNumber)
        if allowsExternalBinaryDataStorage { hasher.append(byte: 1) }
        if preservesValueInHistoryOnDeletion { hasher.append(byte: 1) }
        return hasher.sha256()
    }

    /// A composite's stored elements, the elements of composites within it in their place.
    var flattenedCompositeElements: [AttributeDescription] {
        compositeElements.filter { !$0.isTransient }.flatMap { $0.type == .composite ? $0.flattenedCompositeElements : [$0] }
    }

    /// A derived attribute's expression as Core Data's `NSExpression` prints it, which is what
    /// its hash covers: Xcode writes `pages.@count`, Core Data hashes `count:(pages)` (a
    /// trailing `@sum`, `@avg`, `@min` or `@max` likewise becomes its function). `nil` for an
    /// attribute that is not derived.
    public var coreDataDerivationFormat: String? {
        guard let expression = derivationExpression?.trimmingCharacters(in: .whitespaces) else { return nil }
        for function in ["count", "sum", "avg", "min", "max"] {
            let suffix = ".@\(function)"
            if expression.hasSuffix(suffix), expression.count > suffix.count {
                let path = expression.dropLast(suffix.count)
                return "\(function == "avg" ? "average" : function):(\(path))"
            }
        }
        return expression
    }
}

extension RelationshipDescription {
    /// Core Data's version hash of the relationship (SHA-256): its name, optionality,
    /// transience and modifier, its destination, its inverse (unless it is its own inverse),
    /// its maximum count (1 for a to-one), its minimum count as the model gives it, and
    /// whether it is ordered. The delete rule and the renaming identifier do not change it.
    ///
    /// - Parameter isOwnInverse: Whether the relationship's inverse is itself (a symmetric
    ///   relationship such as `Person.spouse`); the model works this out for its entities
    ///   (see ``EntityDescription/propertyVersionHashes``).
    func versionHash(isOwnInverse: Bool) -> Data {
        var hasher = CoreDataHasher()
        hasher.append(
            CoreDataHasher.propertyHash(
                name: name, isOptional: isOptional, isTransient: isTransient, isReadOnly: false, modifier: versionHashModifier))
        hasher.append(destinationEntityName)
        if let inverseName, !isOwnInverse { hasher.append(inverseName) }
        hasher.append(uint32: isToMany ? CoreDataHasher.count(maxCount) : 1)
        hasher.append(uint32: CoreDataHasher.count(minCount))
        if isToMany && isOrdered { hasher.append(uint16: 1) }
        return hasher.sha256()
    }
}

extension EntityDescription {
    /// Core Data's entity version hash, given its parent's and its properties' hashes: name,
    /// abstractness (a byte, always there), the parent's hash, the hashes of every stored
    /// property, inherited ones included, in name order, the version hash modifier, then the
    /// entity's own uniqueness constraints (each joined with `.`, in sorted order).
    func computeVersionHash(superentityHash: Data?, propertyHashes: [String: Data]) -> Data {
        var hasher = CoreDataHasher()
        hasher.append(name)
        hasher.append(byte: isAbstract ? 1 : 0)
        if let superentityHash { hasher.append(superentityHash) }
        for name in propertyHashes.keys.sorted(by: Self.codeUnitOrder) {
            hasher.append(propertyHashes[name]!)  // the key comes from the dictionary itself
        }
        if let versionHashModifier { hasher.append(versionHashModifier) }
        for constraint in uniquenessConstraints.map({ $0.joined(separator: ".") }).sorted(by: Self.codeUnitOrder) {
            hasher.append(constraint)
        }
        return hasher.sha256()
    }

    /// Core Data sorts names by UTF-16 code unit, case-sensitively (`NSString.compare` with no
    /// options); Swift's `<` on `String` compares Unicode scalars, which differs past the BMP.
    static func codeUnitOrder(_ a: String, _ b: String) -> Bool {
        a.utf16.lexicographicallyPrecedes(b.utf16)
    }
}

extension ManagedObjectModel {
    /// Core Data's `NSStoreModelVersionHashesDigest` over `hashes` (entity name → hash):
    /// SHA-512 over each entity's name followed by its hash, in name order.
    static func versionHashesDigest(_ hashes: [String: Data]) -> Data {
        var hasher = CoreDataHasher()
        for name in hashes.keys.sorted(by: EntityDescription.codeUnitOrder) {
            hasher.append(name)
            hasher.append(hashes[name]!)  // the key comes from the dictionary itself
        }
        return hasher.sha512()
    }

    /// Core Data's `NSStoreModelVersionChecksumKey` over `hashes`: SHA-256 over the entity
    /// hashes in name order.
    static func versionChecksum(_ hashes: [String: Data]) -> Data {
        var hasher = CoreDataHasher()
        for name in hashes.keys.sorted(by: EntityDescription.codeUnitOrder) {
            hasher.append(hashes[name]!)  // the key comes from the dictionary itself
        }
        return hasher.sha256()
    }

    /// The model's version hashes digest (Core Data's `NSStoreModelVersionHashesDigest`):
    /// SHA-512 over every entity's name and hash, in name order.
    public var versionHashesDigest: Data { Self.versionHashesDigest(entityVersionHashesByName) }

    /// The model's version checksum (Core Data's `NSStoreModelVersionChecksumKey`): SHA-256
    /// over every entity's hash, in name order.
    public var versionChecksum: Data { Self.versionChecksum(entityVersionHashesByName) }
}
