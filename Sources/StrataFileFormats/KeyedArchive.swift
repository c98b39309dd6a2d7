/// The object graph of an `NSKeyedArchiver` archive, read from its binary property list:
/// `$objects` and the `$top` references into it, with each object's class name.
package struct KeyedArchive {
    package typealias Value = BinaryPropertyList.Value

    /// One archived object: its fields, by key (a field that refers to another object holds a UID).
    package struct Object {
        package let uid: Int
        package let className: String
        package let fields: [String: Value]

        package subscript(key: String) -> Value? { fields[key] }
    }

    private let list: BinaryPropertyList
    /// The property list index of each element of `$objects`.
    private let objects: [Int]
    /// `$top`'s references, by key.
    package let top: [String: Int]

    package init(_ list: BinaryPropertyList) throws {
        self.list = list
        let root = try list.dictionary(at: list.top)
        guard let objectsIndex = root["$objects"], case .array(let objects) = try list.object(at: objectsIndex),
            let topIndex = root["$top"]
        else {
            throw BinaryPropertyList.Failure(description: "not a keyed archive (no $objects or $top)")
        }
        self.objects = objects
        var top: [String: Int] = [:]
        for (key, value) in try list.dictionary(at: topIndex) {
            if case .uid(let uid) = try list.object(at: value) { top[key] = uid }
        }
        self.top = top
    }

    /// The object a UID names; `nil` for the archive's `$null`.
    package func object(_ uid: Int) throws -> Object? {
        let value = try raw(uid)
        if case .string("$null") = value { return nil }
        guard case .dictionary(let entries) = value else {
            throw BinaryPropertyList.Failure(description: "archived object \(uid) is not an object")
        }
        var fields: [String: Value] = [:]
        for (key, value) in entries {
            guard case .string(let name) = try list.object(at: key) else { continue }
            fields[name] = try list.object(at: value)
        }
        guard case .uid(let classUID)? = fields["$class"], case .dictionary(let classEntries) = try raw(classUID) else {
            throw BinaryPropertyList.Failure(description: "archived object \(uid) has no class")
        }
        var className = ""
        for (key, value) in classEntries {
            guard try list.object(at: key) == .string("$classname"), case .string(let name) = try list.object(at: value) else { continue }
            className = name
        }
        return Object(uid: uid, className: className, fields: fields)
    }

    /// A field's value with a UID followed: the object's own value for primitives and strings.
    package func resolve(_ value: Value?) throws -> Value? {
        guard let value else { return nil }
        guard case .uid(let uid) = value else { return value }
        let resolved = try raw(uid)
        if case .string("$null") = resolved { return nil }
        return resolved
    }

    /// A field as a string (`nil` when absent or `$null`).
    package func string(_ value: Value?) throws -> String? {
        if case .string(let text)? = try resolve(value) { return text }
        return nil
    }

    /// A field as the object it refers to.
    package func object(_ value: Value?) throws -> Object? {
        guard case .uid(let uid)? = value else { return nil }
        return try object(uid)
    }

    /// The elements of an archived array or set (`NS.objects`), each as its field value.
    package func elements(_ value: Value?) throws -> [Value] {
        guard let collection = try object(value) else { return [] }
        guard case .array(let items)? = collection["NS.objects"] else { return [] }
        return try items.map { try list.object(at: $0) }
    }

    /// The entries of an archived dictionary: `NS.keys`/`NS.objects`, or the `values` of Core
    /// Data's known-keys dictionaries (whose keys are the values' own names).
    package func entries(_ value: Value?) throws -> [(key: Value?, value: Value)] {
        guard let dictionary = try object(value) else { return [] }
        if case .array(let keys)? = dictionary["NS.keys"], case .array(let values)? = dictionary["NS.objects"] {
            return try zip(keys, values).map { (key: try list.object(at: $0), value: try list.object(at: $1)) }
        }
        if let values = dictionary["values"] {
            if case .array(let items) = values { return try items.map { (key: nil, value: try list.object(at: $0)) } }
            return try elements(values).map { (key: nil, value: $0) }
        }
        return []
    }

    /// The UIDs an array field holds (`NS.objects`, `NS.keys`); `nil` when the field is no array.
    package func uids(_ value: Value?) throws -> [Int]? {
        guard case .array(let items)? = value else { return nil }
        return try items.map { index in
            guard case .uid(let uid) = try list.object(at: index) else {
                throw BinaryPropertyList.Failure(description: "an archived array holds something other than references")
            }
            return uid
        }
    }

    /// The archive's object at `uid` as the property list holds it: a string, number or data
    /// itself, a dictionary for an object.
    package func raw(_ uid: Int) throws -> Value {
        guard objects.indices.contains(uid) else { throw BinaryPropertyList.Failure(description: "no archived object \(uid)") }
        return try list.object(at: objects[uid])
    }
}

extension BinaryPropertyList {
    /// The dictionary at `index`, with string keys.
    package func dictionary(at index: Int) throws -> [String: Int] {
        guard case .dictionary(let entries) = try object(at: index) else { throw Failure(description: "object \(index) is not a dictionary") }
        var result: [String: Int] = [:]
        for (key, value) in entries {
            if case .string(let name) = try object(at: key) { result[name] = value }
        }
        return result
    }
}
