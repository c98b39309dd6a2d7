import Foundation

/// An object while a predicate is evaluated: its ID, its values, and its entity's layout.
struct ObjectRef {
    let id: ManagedObjectID
    /// The object's values, where they are: most of a fetch's are read from a table's columns.
    let stored: StoredRow
    let layout: EntityLayout

    init(id: ManagedObjectID, stored: StoredRow, layout: EntityLayout) {
        self.id = id
        self.stored = stored
        self.layout = layout
    }

    init(id: ManagedObjectID, row: Row, layout: EntityLayout) {
        self.init(id: id, stored: .row(row), layout: layout)
    }
}

/// Where evaluation finds the objects that relationships point at.
protocol ObjectSource {
    func object(for id: ManagedObjectID) -> ObjectRef?
    /// The managed object of `ref`, for a key its class computes (``ComputedKey``); `nil` where
    /// there are no managed objects (a migration's rows), and the key then reads as `nil`.
    func managedObject(for ref: ObjectRef) -> ManagedObject?
}

extension ObjectSource {
    func managedObject(for ref: ObjectRef) -> ManagedObject? { nil }
}

/// A value while a predicate is evaluated: a constant's value, or what a key path reached.
enum EvaluationValue {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case uri(URL)
    case objectID(ManagedObjectID)
    case object(ObjectRef)
    case collection([EvaluationValue])
    /// A dictionary result, for a having-predicate: its keys are the result's names.
    case dictionary([String: EvaluationValue])

    init(_ constant: PredicateValue) {
        switch constant {
        case .null: self = .null
        case .bool(let v): self = .bool(v)
        case .integer(let v): self = .integer(v)
        case .double(let v): self = .double(v)
        case .decimal(let v): self = .decimal(v)
        case .string(let v): self = .string(v)
        case .date(let v): self = .date(v)
        case .data(let v): self = .data(v)
        case .uuid(let v): self = .uuid(v)
        case .uri(let v): self = .uri(v)
        case .objectID(let v): self = .objectID(v)
        case .collection(let values): self = .collection(values.map(EvaluationValue.init))
        }
    }

    init(_ attribute: AttributeValue?) {
        guard let attribute else {
            self = .null
            return
        }
        switch attribute {
        case .integer16(let v): self = .integer(Int64(v))
        case .integer32(let v): self = .integer(Int64(v))
        case .integer64(let v): self = .integer(v)
        case .decimal(let v): self = .decimal(v)
        case .double(let v): self = .double(v)
        case .float(let v): self = .double(Double(v))
        case .string(let v): self = .string(v)
        case .boolean(let v): self = .bool(v)
        case .date(let v): self = .date(v)
        case .binaryData(let v), .transformable(let v): self = .data(v)
        case .uuid(let v): self = .uuid(v)
        case .uri(let v): self = .uri(v)
        case .objectID(let v): self = .objectID(v)
        // External data whose file could not be read: its bytes if the file reads now; else it
        // compares as no value (a predicate cannot throw here; reading the value does).
        case .externalDataReference(let v): self = (try? v.data()).map { .data($0) } ?? .null
        }
    }

    /// The value as a number, when it is one (booleans count as 0 and 1, as in Core Data).
    var number: Double? {
        switch self {
        case .integer(let v): Double(v)
        case .double(let v): v
        case .decimal(let v): NSDecimalNumber(decimal: v).doubleValue
        case .bool(let v): v ? 1 : 0
        default: nil
        }
    }

    /// The elements of a collection; a single value as a collection of one; nothing for null.
    var elements: [EvaluationValue] {
        switch self {
        case .collection(let values): values
        case .null: []
        default: [self]
        }
    }

    var isCollection: Bool {
        if case .collection = self { return true }
        return false
    }

    /// The object ID of an object or an object ID.
    var objectID: ManagedObjectID? {
        switch self {
        case .object(let ref): ref.id
        case .objectID(let id): id
        default: nil
        }
    }

    /// A number as an ``ExpressionDescription/expressionResultType`` asks for it: integer types
    /// truncate a fraction toward zero (as SQL's `CAST`), floating-point and decimal types take
    /// an integer; other values, and numbers out of an integer type's range, stay as they are.
    func converted(to type: AttributeType) -> EvaluationValue {
        switch (self, type) {
        case (.double(let value), .integer16), (.double(let value), .integer32), (.double(let value), .integer64):
            guard value.isFinite, let integer = Int64(exactly: value.rounded(.towardZero)) else { return self }
            return .integer(integer)
        case (.decimal(let value), .integer16), (.decimal(let value), .integer32), (.decimal(let value), .integer64):
            var truncated = Decimal()
            var source = value
            NSDecimalRound(&truncated, &source, 0, value < 0 ? .up : .down)
            return Int64(exactly: NSDecimalNumber(decimal: truncated).int64Value).map(EvaluationValue.integer) ?? self
        case (.integer(let value), .double), (.integer(let value), .float): return .double(Double(value))
        case (.decimal(let value), .double), (.decimal(let value), .float): return .double(NSDecimalNumber(decimal: value).doubleValue)
        case (.integer(let value), .decimal): return .decimal(Decimal(value))
        case (.double(let value), .decimal): return value.isFinite ? .decimal(Decimal(value)) : self
        default: return self
        }
    }

    /// The form dictionary results and evaluated expressions give, as Core Data's: numbers as
    /// `NSNumber` (see ``AttributeValue/keyValue``), the rest as ``sendable``.
    var resultValue: (any Sendable)? {
        switch self {
        case .integer(let v): NSNumber(value: v)
        case .double(let v): NSNumber(value: v)
        case .collection(let values): values.map(\.resultValue)
        case .dictionary(let values): values.compactMapValues(\.resultValue)
        default: sendable
        }
    }

    /// A `Sendable` form, in Swift's own types.
    var sendable: (any Sendable)? {
        switch self {
        case .null: nil
        case .bool(let v): v
        case .integer(let v): v
        case .double(let v): v
        case .decimal(let v): v
        case .string(let v): v
        case .date(let v): v
        case .data(let v): v
        case .uuid(let v): v
        case .uri(let v): v
        case .objectID(let v): v
        case .object(let ref): ref.id
        case .collection(let values): values.map(\.sendable)
        case .dictionary(let values): values.compactMapValues(\.sendable)
        }
    }
}
