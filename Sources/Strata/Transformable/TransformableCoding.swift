import Foundation

/// How a transformable attribute turns values into the bytes it stores, by the transformer its
/// model names (`valueTransformerName`), as Core Data does:
/// - none, `NSSecureUnarchiveFromData`, `NSKeyedUnarchiveFromData` (or Foundation's class names
///   for them): an `NSKeyedArchiver` archive (``ArchivedValue``), what an app's Core Data reads;
/// - ``TransformableCoding/jsonTransformerName``: JSON, for a model that asks for Codable values
///   as JSON (what Strata stored before it wrote archives; such bytes still read under any name);
/// - any other name: the ``ValueTransformer`` registered under it.
enum TransformableCoding: Equatable {
    case keyedArchive
    case json
    case transformer(String)

    /// The transformer name that asks for JSON: Strata's own, for models that want Codable values
    /// stored as JSON rather than as Core Data's archives.
    static let jsonTransformerName = "StrataJSONTransformer"

    static let archiverNames: Set<String> = [
        "NSSecureUnarchiveFromData", "NSKeyedUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer",
        "NSSecureUnarchiveFromDataTransformerName", "NSKeyedUnarchiveFromDataTransformerName",
    ]

    init(transformerName: String?) {
        guard let name = transformerName?.trimmingCharacters(in: .whitespaces), !name.isEmpty, !Self.archiverNames.contains(name) else {
            self = .keyedArchive
            return
        }
        self = name == Self.jsonTransformerName ? .json : .transformer(name)
    }

    static let archiveMagic = Data("bplist00".utf8)

    /// The value stored bytes stand for, as Foundation's values (`nil` for an archived `nil`).
    func value(fromStored data: Data) throws -> Any? {
        if data.isEmpty { return nil }
        switch self {
        case .transformer(let name):
            let transformer = try Self.registered(name)
            if Self.unarchives(transformer) { return try TransformableCoding.keyedArchive.value(fromStored: data) }
            guard let value = transformer.reverseTransformedValue(data), !(value is NSNull) else { throw Self.gaveNothing(name) }
            return value
        case .keyedArchive where data.starts(with: Self.archiveMagic):
            let archived = try ArchivedValue(keyedArchive: data)
            return archived == .null ? nil : archived.anyValue
        case .keyedArchive, .json:
            return try Self.json(data)
        }
    }

    /// The value stored bytes stand for, as `T`.
    func value<T: Decodable>(fromStored data: Data, as type: T.Type) throws -> T? {
        if data.isEmpty { return nil }
        switch self {
        case .transformer(let name):
            let transformer = try Self.registered(name)
            if Self.unarchives(transformer) { return try TransformableCoding.keyedArchive.value(fromStored: data, as: type) }
            guard let value = transformer.reverseTransformedValue(data), !(value is NSNull) else { throw Self.gaveNothing(name) }
            if let typed = value as? T { return typed }
            return try ArchivedValue(any: value).decode(type)
        case .keyedArchive where data.starts(with: Self.archiveMagic):
            let archived = try ArchivedValue(keyedArchive: data)
            if archived == .null { return nil }
            return try archived.decode(type)
        case .keyedArchive, .json:
            do {
                return try JSONDecoder.transformable.decode(type, from: data)
            } catch {
                throw TransformableValueError(.wrongType, "the stored JSON is not a \(type): \(error)")
            }
        }
    }

    /// The bytes to store for a value of Foundation's kinds, or a `Codable` one.
    func storedData(for value: Any) throws -> Data {
        switch self {
        case .transformer(let name):
            let transformer = try Self.registered(name)
            guard let data = transformer.transformedValue(value) as? Data else {
                throw TransformableValueError(
                    .transformerFailed, transformerName: name, "the value transformer \(name) gave no data for a \(type(of: value))")
            }
            return data
        case .keyedArchive:
            if let encodable = value as? any Encodable, (try? ArchivedValue(any: value)) == nil {
                return try ArchivedValue(encoding: encodable).keyedArchive()
            }
            return try ArchivedValue(any: value).keyedArchive()
        case .json:
            if let encodable = value as? any Encodable { return try JSONEncoder.transformable.encode(encodable) }
            guard JSONSerialization.isValidJSONObject([value]) else {
                throw TransformableValueError(.notArchivable, "a \(type(of: value)) value has no JSON form")
            }
            return try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
        }
    }

    /// The bytes to store for an `Encodable` value.
    func storedData<T: Encodable>(encoding value: T) throws -> Data {
        switch self {
        case .transformer: return try storedData(for: value)
        case .keyedArchive: return try ArchivedValue(encoding: value).keyedArchive()
        case .json: return try JSONEncoder.transformable.encode(value)
        }
    }

    /// A transformer that gave nothing for bytes that are there: Core Data would read `nil`;
    /// Strata says so, since the value is there.
    private static func gaveNothing(_ name: String) -> TransformableValueError {
        TransformableValueError(
            .transformerFailed, transformerName: name, "the value transformer \(name) gave no value for the stored bytes; they are kept")
    }

    /// Whether `transformer` is Strata's `NSSecureUnarchiveFromDataTransformer` (or an app's
    /// subclass of it, as apps register theirs): the archive is read here, so that what stops it
    /// (an unknown class) is reported rather than read as nothing.
    private static func unarchives(_ transformer: ValueTransformer) -> Bool {
        #if canImport(Darwin)
        false
        #else
        transformer is NSSecureUnarchiveFromDataTransformer
        #endif
    }

    private static func json(_ data: Data) throws -> Any? {
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else {
            throw TransformableValueError(.malformedArchive, "the stored bytes are neither a keyed archive nor JSON")
        }
        return value is NSNull ? nil : value
    }

    private static func registered(_ name: String) throws -> ValueTransformer {
        #if canImport(Darwin)
        let found = ValueTransformer(forName: NSValueTransformerName(rawValue: name))
        #else
        let found = ValueTransformer.valueTransformer(forName: NSValueTransformerName(rawValue: name))
        #endif
        guard let found else {
            throw TransformableValueError(
                .unregisteredTransformer, transformerName: name,
                "the attribute's value transformer \(name) is not registered: register it with "
                    + "ValueTransformer.setValueTransformer(_:forName: .init(\"\(name)\")) before reading or writing the value")
        }
        return found
    }
}

extension AttributeDescription {
    /// How this (transformable) attribute encodes its values.
    var transformableCoding: TransformableCoding {
        TransformableCoding(transformerName: valueTransformerName)
    }
}
