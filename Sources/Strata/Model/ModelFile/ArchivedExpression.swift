import Foundation
import StrataFileFormats

/// Core Data's archived `NSExpression`s, as Xcode writes them into mapping models (an
/// `xcmapping.xml`'s `valueexpressiondata`, a `.cdm`'s `NSValueExpression`) and models
/// (derivations): read into ``ValueExpression``, and written back.
///
/// The classes, as the fixtures' files show them (`fixtures/compiled`):
/// - `NSConstantValueExpression` (`NSConstantValue`); with `NSConstantValueClassName`
///   `_NSPredicateUtilities` and no value, it is the target of a built-in function.
/// - `NSVariableExpression` (`NSVariable`), `NSSelfExpression`.
/// - `NSKeyPathExpression` (an `NSFunctionExpression` subclass: `NSOperand`, `NSSelectorName`
///   `valueForKeyPath:`, `NSArguments` holding one `NSKeyPathSpecifierExpression` with
///   `NSKeyPath`): `$source.name` is the key path `name` on the variable `source`.
/// - `NSFunctionExpression` (`NSOperand`, `NSSelectorName`, `NSArguments`): a built-in
///   function (`now`, `add:to:`) when its operand is `_NSPredicateUtilities`, else
///   `FUNCTION(operand, "selector", arguments…)`.
/// - `NSAggregateExpression` (`NSCollection`).
/// - `NSFetchRequestExpression` (`NSFRExpression`, `NSMOCExpression`, `NSCountOnlyFlag`), an
///   entity mapping's source expression: `FETCH(request, context, countOnly)`.
///
/// Expressions holding predicates (`SUBQUERY`, `TERNARY`) and blocks are refused by name.
enum ArchivedExpression {
    /// Why an archived expression cannot be read or written.
    struct Unreadable: Error, CustomStringConvertible {
        let description: String
    }

    /// The built-in functions' target in an archive.
    static let utilitiesClass = "_NSPredicateUtilities"
    /// How deep expressions nest before an archive counts as damaged (a cycle makes one its own
    /// argument).
    static let maximumDepth = 64

    // MARK: Reading

    /// The expression `value` (a field referring to an archived `NSExpression`) holds; `nil` for
    /// `$null` or no field.
    static func read(_ value: KeyedArchive.Value?, in archive: KeyedArchive) throws -> ValueExpression? {
        guard let object = try archive.object(value) else { return nil }
        return try read(object, in: archive, depth: 0)
    }

    /// The root expression of an archive of one `NSExpression` (what `valueexpressiondata` holds).
    static func read(archiveData data: Data) throws -> ValueExpression? {
        do {
            let archive = try KeyedArchive(BinaryPropertyList(data))
            guard let root = archive.top["root"] else { throw Unreadable(description: "the archive has no root object") }
            return try read(.uid(root), in: archive)
        } catch let failure as BinaryPropertyList.Failure {
            throw Unreadable(description: "the archive cannot be read: \(failure.description)")
        }
    }

    private static func read(_ object: KeyedArchive.Object, in archive: KeyedArchive, depth: Int) throws -> ValueExpression {
        guard depth < maximumDepth else { throw Unreadable(description: "the expression nests deeper than \(maximumDepth) levels") }
        func expression(_ key: String) throws -> ValueExpression {
            guard let inner = try archive.object(object[key]) else {
                throw Unreadable(description: "an \(object.className) has no \(key)")
            }
            return try read(inner, in: archive, depth: depth + 1)
        }
        func list(_ key: String) throws -> [ValueExpression] {
            try archive.elements(object[key]).map { item in
                guard let inner = try archive.object(item) else { return .constant(.null) }
                return try read(inner, in: archive, depth: depth + 1)
            }
        }
        switch object.className {
        case "NSConstantValueExpression":
            return .constant(try constant(object, in: archive))
        case "NSVariableExpression":
            guard let name = try archive.string(object["NSVariable"]) else { throw Unreadable(description: "a variable expression has no name") }
            return .variable(name)
        case "NSSelfExpression":
            return .evaluatedObject
        case "NSKeyPathSpecifierExpression":
            return try keyPath(object, in: archive, on: .evaluatedObject)
        case "NSKeyPathExpression", "NSFunctionExpression":
            let selector = try archive.string(object["NSSelectorName"]) ?? ""
            let arguments = try archive.elements(object["NSArguments"]).compactMap { try archive.object($0) }
            if selector == "valueForKeyPath:" {
                guard let specifier = arguments.first else { throw Unreadable(description: "a key path expression has no key path") }
                return try keyPath(specifier, in: archive, on: try expression("NSOperand"))
            }
            guard !selector.isEmpty else { throw Unreadable(description: "a function expression has no selector") }
            let values = try arguments.map { try read($0, in: archive, depth: depth + 1) }
            if let operand = try archive.object(object["NSOperand"]), operand.className == "NSConstantValueExpression",
                try archive.string(operand["NSConstantValueClassName"]) == utilitiesClass
            {
                return .function(selector, values)
            }
            return .function("FUNCTION:" + selector, [try expression("NSOperand")] + values)
        case "NSAggregateExpression":
            return .aggregate(try list("NSCollection"))
        case "NSFetchRequestExpression":
            // FETCH(request, context, countOnly): the source expression of an entity mapping.
            let countOnly = try archive.resolve(object["NSCountOnlyFlag"]) == .bool(true)
            return .function("FETCH", [try expression("NSFRExpression"), try expression("NSMOCExpression"), .constant(.bool(countOnly))])
        default:
            throw Unreadable(description: "the expression is an \(object.className), which Strata does not read")
        }
    }

    /// A key path (`NSKeyPath`, or a constant string) on `base`: `a.b.@count` becomes keys and a
    /// collection operator.
    private static func keyPath(_ specifier: KeyedArchive.Object, in archive: KeyedArchive, on base: ValueExpression) throws -> ValueExpression {
        guard let path = try archive.string(specifier["NSKeyPath"]) ?? archive.string(specifier["NSConstantValue"]), !path.isEmpty else {
            throw Unreadable(description: "a key path expression has no key path")
        }
        return keyPath(path, on: base)
    }

    /// `path` (dotted, with collection operators) applied to `base`.
    static func keyPath(_ path: String, on base: ValueExpression) -> ValueExpression {
        var expression = base
        let components = path.split(separator: ".").map(String.init)
        for (index, component) in components.enumerated() {
            if component.hasPrefix("@") {
                return .collectionOperator(expression, String(component.dropFirst()), Array(components[(index + 1)...]))
            }
            expression = .key(expression, component)
        }
        return expression
    }

    private static func constant(_ object: KeyedArchive.Object, in archive: KeyedArchive) throws -> PredicateValue {
        guard let field = object["NSConstantValue"] else { return .null }
        let value: ArchivedValue
        do {
            switch field {
            case .uid(let uid):
                var reader = KeyedArchiveValueReader(archive: archive)
                value = try reader.value(uid, depth: 0)
            case .integer(let v): value = .integer(v)
            case .real(let v): value = .double(v)
            case .bool(let v): value = .boolean(v)
            case .string(let v): value = .string(v)
            default: return .null
            }
        } catch let error as TransformableValueError {
            throw Unreadable(description: "a constant cannot be read: \(error.message)")
        }
        return try predicateValue(value)
    }

    private static func predicateValue(_ value: ArchivedValue) throws -> PredicateValue {
        switch value {
        case .string(let v): return .string(v)
        case .integer(let v): return .integer(v)
        case .double(let v): return .double(v)
        case .boolean(let v): return .bool(v)
        case .decimal(let v): return .decimal(v)
        case .data(let v): return .data(v)
        case .date(let v): return .date(v)
        case .url(let v): return .uri(v)
        case .uuid(let v): return .uuid(v)
        case .null: return .null
        case .array(let items), .orderedSet(let items): return .collection(try items.map(predicateValue))
        case .set(let items): return .collection(try items.map(predicateValue))
        case .dictionary: throw Unreadable(description: "a constant is a dictionary, which an expression cannot hold")
        }
    }

    // MARK: Writing

    /// An `NSKeyedArchiver` archive of `expression`, as Xcode writes a value expression.
    static func archive(_ expression: ValueExpression) throws -> Data {
        var writer = KeyedArchiveWriter()
        let root = try add(expression, to: &writer)
        return writer.archive(root: root)
    }

    /// Adds `expression` and everything it holds to `writer`; its UID.
    static func add(_ expression: ValueExpression, to writer: inout KeyedArchiveWriter) throws -> Int {
        switch expression {
        case .constant(.null):
            // Core Data's nil constant has no value field at all.
            return writer.finish(writer.reserve(), "NSConstantValueExpression", ["NSExpressionType": .integer(0)])
        case .constant(let value):
            let uid = writer.reserve()
            let constant = try writer.add(archivedValue(value))
            return writer.finish(uid, "NSConstantValueExpression", ["NSConstantValue": .uid(constant), "NSExpressionType": .integer(0)])
        case .variable(let name):
            let uid = writer.reserve()
            let text = try writer.add(.string(name))
            return writer.finish(uid, "NSVariableExpression", ["NSVariable": .uid(text), "NSExpressionType": .integer(2)])
        case .evaluatedObject:
            return writer.finish(writer.reserve(), "NSSelfExpression", ["NSExpressionType": .integer(1)])
        case .key, .collectionOperator:
            let (base, path) = try flattened(expression)
            let uid = writer.reserve()
            let operand = try add(base, to: &writer)
            let selector = try writer.add(.string("valueForKeyPath:"))
            let arguments = writer.reserve()
            let specifier = writer.reserve()
            let text = try writer.add(.string(path))
            _ = writer.finish(specifier, "NSKeyPathSpecifierExpression", ["NSExpressionType": .integer(10), "NSKeyPath": .uid(text)])
            _ = writer.finish(arguments, "NSMutableArray", ["NS.objects": .array([.uid(specifier)])])
            return writer.finish(
                uid, "NSKeyPathExpression",
                ["NSOperand": .uid(operand), "NSSelectorName": .uid(selector), "NSExpressionType": .integer(4), "NSArguments": .uid(arguments)])
        case .function(let name, let arguments):
            if name.hasPrefix("FUNCTION:"), let target = arguments.first {
                return try function(String(name.dropFirst(9)), target: target, arguments: Array(arguments.dropFirst()), to: &writer)
            }
            return try function(name, target: nil, arguments: arguments, to: &writer)
        case .binary(let op, let lhs, let rhs):
            guard let selector = binarySelectors[op] else { throw Unreadable(description: "the operator \(op) has no archived form") }
            return try function(selector, target: nil, arguments: [lhs, rhs], to: &writer)
        case .unary("-", let operand):
            return try function("from:subtract:", target: nil, arguments: [.constant(.integer(0)), operand], to: &writer)
        case .unary(_, let operand):
            return try function("onesComplement:", target: nil, arguments: [operand], to: &writer)
        case .aggregate(let items):
            let uid = writer.reserve()
            let collection = writer.reserve()
            let elements = try items.map { try add($0, to: &writer) }
            _ = writer.finish(collection, "NSArray", ["NS.objects": .array(elements.map { .uid($0) })])
            return writer.finish(uid, "NSAggregateExpression", ["NSCollection": .uid(collection), "NSExpressionType": .integer(14)])
        case .placeholder, .subscripted, .subquery, .ternary, .cast:
            throw Unreadable(description: "the expression \(expression) has no archived form Strata writes")
        }
    }

    /// The arithmetic operators as the built-in functions Core Data archives them as.
    private static let binarySelectors = [
        "+": "add:to:", "-": "from:subtract:", "*": "multiply:by:", "/": "divide:by:", "%": "modulus:by:", "**": "raise:toPower:",
        "&": "bitwiseAnd:with:", "|": "bitwiseOr:with:", "^": "bitwiseXor:with:", "<<": "leftshift:by:", ">>": "rightshift:by:",
    ]

    private static func function(
        _ selector: String, target: ValueExpression?, arguments: [ValueExpression], to writer: inout KeyedArchiveWriter
    ) throws -> Int {
        let uid = writer.reserve()
        let operand: Int
        if let target {
            operand = try add(target, to: &writer)
        } else {
            let utilities = try writer.add(.string(utilitiesClass))
            operand = writer.finish(writer.reserve(), "NSConstantValueExpression", ["NSConstantValueClassName": .uid(utilities), "NSExpressionType": .integer(0)])
        }
        let name = try writer.add(.string(selector))
        let list = writer.reserve()
        let elements = try arguments.map { try add($0, to: &writer) }
        _ = writer.finish(list, "NSArray", ["NS.objects": .array(elements.map { .uid($0) })])
        return writer.finish(
            uid, "NSFunctionExpression",
            ["NSOperand": .uid(operand), "NSSelectorName": .uid(name), "NSExpressionType": .integer(4), "NSArguments": .uid(list)])
    }

    /// A key path expression as its base (a variable, `SELF`, a function) and its dotted path.
    private static func flattened(_ expression: ValueExpression) throws -> (ValueExpression, String) {
        switch expression {
        case .key(let base, let key):
            let (root, path) = try flattened(base)
            return (root, path.isEmpty ? key : path + "." + key)
        case .collectionOperator(let base, let name, let rest):
            let (root, path) = try flattened(base)
            return (root, ([path].filter { !$0.isEmpty } + ["@" + name] + rest).joined(separator: "."))
        default:
            return (expression, "")
        }
    }

    private static func archivedValue(_ value: PredicateValue) throws -> ArchivedValue {
        switch value {
        case .null: .null
        case .bool(let v): .boolean(v)
        case .integer(let v): .integer(v)
        case .double(let v): .double(v)
        case .decimal(let v): .decimal(v)
        case .string(let v): .string(v)
        case .date(let v): .date(v)
        case .data(let v): .data(v)
        case .uuid(let v): .uuid(v)
        case .uri(let v): .url(v)
        case .collection(let items): .array(try items.map(archivedValue))
        case .objectID(let id): throw Unreadable(description: "the object ID \(id) cannot be archived in an expression")
        }
    }
}
