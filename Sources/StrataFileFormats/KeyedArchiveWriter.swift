import Foundation

/// Builds an `NSKeyedArchiver` archive's `$objects`, as Foundation lays them out: `$null` first,
/// each object in a place reserved before its children, each class (`$classname`, `$classes`)
/// after the first object of it, equal plain values stored once. What the objects are (values,
/// a model's descriptions, expressions) is for the layers above.
package struct KeyedArchiveWriter {
    package private(set) var objects: [PropertyListNode] = [.string("$null")]
    private var shared: [PropertyListNode: Int] = [:]
    private var classes: [String: Int] = [:]

    package init() {}

    /// The archive whose root is the object `root`.
    package func archive(root: Int) -> Data {
        BinaryPropertyListWriter.data(
            .dictionary([
                "$version": .integer(100_000), "$archiver": .string("NSKeyedArchiver"),
                "$top": .dictionary(["root": .uid(root)]), "$objects": .array(objects),
            ]))
    }

    /// The UID of a plain value (a string, number, boolean or data), stored once however often
    /// it is added.
    package mutating func plain(_ node: PropertyListNode) -> Int {
        if let uid = shared[node] { return uid }
        objects.append(node)
        shared[node] = objects.count - 1
        return objects.count - 1
    }

    /// The UID of a value stored each time it is added (Foundation does not share reals).
    package mutating func unshared(_ node: PropertyListNode) -> Int {
        objects.append(node)
        return objects.count - 1
    }

    /// The UID of a new object of `className` with `fields` and no children of its own.
    package mutating func object(_ className: String, _ fields: KeyValuePairs<String, PropertyListNode>) -> Int {
        finish(reserve(), className, fields)
    }

    /// A place for an object whose fields are added after its children (``finish(_:_:_:)``).
    package mutating func reserve() -> Int {
        objects.append(.string("$null"))
        return objects.count - 1
    }

    /// Fills the place `uid` with an object of `className` and its fields.
    package mutating func finish(_ uid: Int, _ className: String, _ fields: KeyValuePairs<String, PropertyListNode>) -> Int {
        finish(uid, className, fields: fields.map { ($0.key, $0.value) })
    }

    /// Fills the place `uid` with an object of `className` and its fields, in order.
    package mutating func finish(_ uid: Int, _ className: String, fields: [(String, PropertyListNode)]) -> Int {
        let classUID = classUID(className)
        objects[uid] = .dictionary(keys: fields.map { .string($0.0) } + [.string("$class")], values: fields.map(\.1) + [.uid(classUID)])
        return uid
    }

    private mutating func classUID(_ name: String) -> Int {
        if let uid = classes[name] { return uid }
        let chain: [String] =
            switch name {
            case "NSDecimalNumber": ["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"]
            case "NSMutableArray": ["NSMutableArray", "NSArray", "NSObject"]
            case "NSMutableDictionary": ["NSMutableDictionary", "NSDictionary", "NSObject"]
            case "NSMutableSet": ["NSMutableSet", "NSSet", "NSObject"]
            // A model's descriptions, as momc archives them (`fixtures/compiled`).
            case "NSAttributeDescription", "NSRelationshipDescription", "NSFetchedPropertyDescription": [name, "NSPropertyDescription", "NSObject"]
            case "NSDerivedAttributeDescription", "NSCompositeAttributeDescription":
                [name, "NSAttributeDescription", "NSPropertyDescription", "NSObject"]
            // Expressions, as Foundation archives them (`fixtures/compiled`).
            case "NSKeyPathExpression": ["NSKeyPathExpression", "NSFunctionExpression", "NSExpression", "NSObject"]
            case _ where name.hasSuffix("Expression"): [name, "NSExpression", "NSObject"]
            default: [name, "NSObject"]
            }
        objects.append(.dictionary(["$classname": .string(name), "$classes": .array(chain.map { .string($0) })]))
        classes[name] = objects.count - 1
        return objects.count - 1
    }
}
