import Foundation

/// Which attribute type changes a lightweight migration accepts, and what it does to values
/// (`formats/coredata-lightweight-migration.md` §4).
///
/// Core Data accepts any change between Integer 16, 32 and 64, Decimal, Double, Float and
/// Boolean, and copies the stored number as it is, which an app then reads through `NSNumber`.
/// Strata's values are typed, so it keeps what that app would read: an integer exactly; a
/// fraction put in an integer type truncated toward zero; a number put in a Boolean true
/// unless 0, a Boolean in a number 1 or 0. A number that does not fit its new integer type
/// (300,000 into Integer 16) is not read back as itself by anyone: the migration fails on it,
/// naming the object, and writes nothing.
enum TypeConversion {
    /// The types between which Core Data infers any change.
    static let numericFamily: Set<AttributeType> = [.integer16, .integer32, .integer64, .decimal, .double, .float, .boolean]

    /// Why a change of `source` into `destination` cannot be inferred, naming the change; `nil`
    /// when it can.
    static func refusal(from source: AttributeDescription, to destination: AttributeDescription) -> String? {
        let from = source.type, to = destination.type
        if from == to {
            if from == .binaryData, source.allowsExternalBinaryDataStorage, !destination.allowsExternalBinaryDataStorage {
                return "its values move from external storage into the store, which inference cannot do (Core Data refuses it too)"
            }
            return from == .composite && source.compositeElements != destination.compositeElements
                ? "its composite's elements change, which inference cannot map" : nil
        }
        if numericFamily.contains(from) && numericFamily.contains(to) { return nil }
        if Set([from, to]) == [.binaryData, .transformable], destination.userInfo["NSMigrationAllowTypeTransformation"] != nil,
            !source.allowsExternalBinaryDataStorage, !destination.allowsExternalBinaryDataStorage
        {
            return nil
        }
        // Beyond Core Data: a scalar's text, which loses nothing.
        if to == .string, [.integer16, .integer32, .integer64, .decimal, .double, .float, .boolean, .uuid, .uri, .date].contains(from) {
            return nil
        }
        return "\(from.rawValue) → \(to.rawValue): the types are incompatible, so inference cannot map it "
            + "(Core Data refuses it too); give the step a custom mapping"
    }

    /// The value in `type`, as an app reads it after the change; `nil` when it does not fit.
    static func convert(_ value: AttributeValue, to type: AttributeType) -> AttributeValue? {
        if value.type == type { return value }
        if let converted = value.converted(to: type) { return converted }
        switch type {
        case .string: return text(of: value)
        case .binaryData: if case .transformable(let data) = value { return .binaryData(data) }
        case .transformable: if case .binaryData(let data) = value { return .transformable(data) }
        case _ where numericFamily.contains(type): return number(value, as: type)
        default: break
        }
        return nil
    }

    /// A number or Boolean as another member of the numeric family.
    private static func number(_ value: AttributeValue, as type: AttributeType) -> AttributeValue? {
        let real: Double
        switch value {
        case .boolean(let flag): real = flag ? 1 : 0
        case .integer16(let v): real = Double(v)
        case .integer32(let v): real = Double(v)
        case .integer64(let v):
            if type == .boolean { return .boolean(v != 0) }  // exactly, whatever its size
            real = Double(v)
        case .decimal(let v): real = NSDecimalNumber(decimal: v).doubleValue
        case .double(let v): real = v
        case .float(let v): real = Double(v)
        default: return nil
        }
        switch type {
        case .boolean: return .boolean(real != 0)
        case .double: return .double(real)
        case .float: return .float(Float(real))
        case .decimal: return real.isFinite ? .decimal(Decimal(real)) : nil
        case .integer16, .integer32, .integer64:
            guard real.isFinite else { return nil }
            let whole = real.rounded(.towardZero)
            guard let integer = Int64(exactly: whole) else { return nil }
            return AttributeValue.integer64(integer).converted(to: type)
        default: return nil
        }
    }

    private static func text(of value: AttributeValue) -> AttributeValue? {
        switch value {
        case .integer16(let v): .string("\(v)")
        case .integer32(let v): .string("\(v)")
        case .integer64(let v): .string("\(v)")
        case .decimal(let v): .string("\(v)")
        case .double(let v): .string("\(v)")
        case .float(let v): .string("\(v)")
        case .boolean(let v): .string(v ? "true" : "false")
        case .uuid(let v): .string(v.uuidString)
        case .uri(let v): .string(v.absoluteString)
        case .date(let v): .string(v.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        default: nil
        }
    }
}
