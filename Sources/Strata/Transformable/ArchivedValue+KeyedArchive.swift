import Foundation
import StrataFileFormats

extension ArchivedValue {
    /// Reads an `NSKeyedArchiver` archive (a binary property list with `$archiver`, `$top.root` and
    /// `$objects`), in whatever order its objects are. A root of `$null` reads as ``null``.
    ///
    /// - Throws: ``TransformableValueError``: `.unknownClass` naming a class that is none of the
    ///   property-list kinds, `.malformedArchive` for bytes that are not a whole keyed archive.
    public init(keyedArchive data: Data) throws {
        do {
            let archive = try KeyedArchive(BinaryPropertyList(data))
            guard let root = archive.top["root"] else {
                throw TransformableValueError(.malformedArchive, "the keyed archive has no root object ($top.root)")
            }
            var reader = KeyedArchiveValueReader(archive: archive)
            self = try reader.value(root, depth: 0)
        } catch let failure as BinaryPropertyList.Failure {
            throw TransformableValueError(.malformedArchive, "the keyed archive cannot be read: \(failure.description)")
        }
    }

    /// The value as Foundation's keyed archiver writes it (`NSKeyedArchiver`, `$version` 100000):
    /// `$objects` starting with `$null`, each object before its children, a dictionary's keys
    /// before its values, each class (`$classname`, `$classes`) after the first object of it;
    /// equal strings and numbers stored once. Sets and dictionaries are written in a fixed order,
    /// so that equal values give equal bytes.
    ///
    /// - Throws: ``TransformableValueError`` `.notArchivable` for a decimal that is not a number.
    public func keyedArchive() throws -> Data {
        var writer = KeyedArchiveWriter()
        let root = try writer.add(self)
        return writer.archive(root: root)
    }
}

extension KeyedArchiveWriter {
    /// The UID of `value`, added with everything it holds.
    mutating func add(_ value: ArchivedValue) throws -> Int {
        switch value {
        case .string(let v): return plain(.string(v))
        case .integer(let v): return plain(.integer(v))
        case .boolean(let v): return plain(.bool(v))
        case .data(let v): return plain(.data(v))
        case .double(let v): return unshared(.real(v))
        case .null: return object("NSNull", [:])
        case .date(let v): return object("NSDate", ["NS.time": .real(v.timeIntervalSinceReferenceDate)])
        case .uuid(let v): return object("NSUUID", ["NS.uuidbytes": .data(withUnsafeBytes(of: v.uuid) { Data($0) })])
        case .url(let v):
            let uid = reserve()
            let relative = plain(.string(v.absoluteString))
            return finish(uid, "NSURL", ["NS.base": .uid(0), "NS.relative": .uid(relative)])
        case .decimal(let v): return object("NSDecimalNumber", try ArchivedDecimal.fields(of: v))
        case .array(let items): return try collection("NSArray", items)
        case .orderedSet(let items): return try collection("NSOrderedSet", items)
        case .set(let items): return try collection("NSSet", items.sorted(by: ArchivedValue.fixedOrder))
        case .dictionary(let entries):
            let uid = reserve()
            let sorted = entries.sorted { ArchivedValue.fixedOrder($0.key, $1.key) }
            let keys = try sorted.map { try add($0.key) }
            let values = try sorted.map { try add($0.value) }
            return finish(uid, "NSDictionary", ["NS.keys": .array(keys.map { .uid($0) }), "NS.objects": .array(values.map { .uid($0) })])
        }
    }

    private mutating func collection(_ className: String, _ items: [ArchivedValue]) throws -> Int {
        let uid = reserve()
        let elements = try items.map { try add($0) }
        return finish(uid, className, ["NS.objects": .array(elements.map { .uid($0) })])
    }
}

extension ArchivedValue {
    /// A fixed order for the elements of sets and the keys of dictionaries.
    static func fixedOrder(_ a: ArchivedValue, _ b: ArchivedValue) -> Bool {
        String(reflecting: a) < String(reflecting: b)
    }
}

/// Reads ``ArchivedValue``s out of a ``KeyedArchive``: the classes Foundation archives
/// property-list values as, mutable ones too; a reference cycle or nesting beyond 256 levels is
/// a damaged archive.
struct KeyedArchiveValueReader {
    let archive: KeyedArchive
    private var visiting: Set<Int> = []

    init(archive: KeyedArchive) {
        self.archive = archive
    }

    mutating func value(_ uid: Int, depth: Int) throws -> ArchivedValue {
        guard depth < 256 else { throw malformed("its objects nest deeper than 256 levels") }
        switch try archive.raw(uid) {
        case .string("$null"): return .null
        case .string(let v): return .string(v)
        case .integer(let v): return .integer(v)
        case .real(let v): return .double(v)
        case .bool(let v): return .boolean(v)
        case .data(let v): return .data(v)
        case .date(let v): return .date(v)
        case .dictionary:
            guard visiting.insert(uid).inserted else { throw malformed("object \(uid) contains itself") }
            defer { visiting.remove(uid) }
            guard let object = try archive.object(uid) else { return .null }
            return try value(of: object, depth: depth)
        case .null, .uid, .array:
            throw malformed("object \(uid) is neither a value nor an object")
        }
    }

    private mutating func value(of object: KeyedArchive.Object, depth: Int) throws -> ArchivedValue {
        func field(_ key: String) throws -> ArchivedValue? {
            switch object[key] {
            case .uid(let uid)?: try value(uid, depth: depth + 1)
            case .string(let v)?: .string(v)
            case .data(let v)?: .data(v)
            case .integer(let v)?: .integer(v)
            case .real(let v)?: .double(v)
            case .bool(let v)?: .boolean(v)
            default: nil
            }
        }
        func elements(_ key: String) throws -> [ArchivedValue] {
            // Older archives number the elements (`NS.object.0`, `NS.object.1`, …).
            guard let uids = try archive.uids(object[key]) else {
                let singular = key == "NS.keys" ? "NS.key" : "NS.object"
                var items: [ArchivedValue] = []
                while let item = try field("\(singular).\(items.count)") { items.append(item) }
                return items
            }
            return try uids.map { try value($0, depth: depth + 1) }
        }
        switch object.className {
        case "NSArray", "NSMutableArray":
            return .array(try elements("NS.objects"))
        case "NSOrderedSet", "NSMutableOrderedSet":
            return .orderedSet(try elements("NS.objects"))
        case "NSSet", "NSMutableSet", "NSCountedSet":
            return .set(Set(try elements("NS.objects")))
        case "NSDictionary", "NSMutableDictionary":
            let keys = try elements("NS.keys"), values = try elements("NS.objects")
            guard keys.count == values.count else { throw malformed("a dictionary has \(keys.count) keys and \(values.count) values") }
            return .dictionary(Dictionary(zip(keys, values), uniquingKeysWith: { _, last in last }))
        case "NSString", "NSMutableString":
            if case .string(let text)? = try field("NS.string") { return .string(text) }
            if case .data(let bytes)? = try field("NS.bytes"), let text = String(data: bytes, encoding: .utf8) { return .string(text) }
            throw malformed("a string has no NS.string")
        case "NSData", "NSMutableData":
            if case .data(let bytes)? = try field("NS.data") ?? field("NS.bytes") { return .data(bytes) }
            throw malformed("a data object has no NS.data")
        case "NSDate":
            guard case .double(let time)? = try field("NS.time") else {
                if case .integer(let time)? = try field("NS.time") { return .date(Date(timeIntervalSinceReferenceDate: Double(time))) }
                throw malformed("a date has no NS.time")
            }
            return .date(Date(timeIntervalSinceReferenceDate: time))
        case "NSURL":
            guard case .string(let relative)? = try field("NS.relative") else { throw malformed("a URL has no NS.relative") }
            var base: URL?
            if case .url(let url)? = try field("NS.base") { base = url }
            guard let url = URL(string: relative, relativeTo: base) else { throw malformed("the URL \(relative) cannot be read") }
            return .url(base == nil ? url : url.absoluteURL)
        case "NSUUID":
            guard case .data(let bytes)? = try field("NS.uuidbytes"), bytes.count == 16 else { throw malformed("a UUID has no 16 NS.uuidbytes") }
            let b = [UInt8](bytes)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case "NSNull":
            return .null
        case "NSDecimalNumber", "NSDecimalNumberPlaceholder":
            return .decimal(try ArchivedDecimal.decimal(from: object, archive: archive))
        default:
            throw TransformableValueError(
                .unknownClass, className: object.className,
                "the archive holds an object of class \(object.className), which Strata cannot decode: register a value "
                    + "transformer for the attribute (ValueTransformer.setValueTransformer(_:forName:)) that reads it")
        }
    }

    private func malformed(_ what: String) -> TransformableValueError {
        TransformableValueError(.malformedArchive, "the keyed archive is damaged: \(what)")
    }
}
