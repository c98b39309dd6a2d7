import Foundation

extension ManagedObject {
    /// Every way the object's current values break its entity's rules.
    func validationErrors() -> [ValidationError] {
        var errors: [ValidationError] = []
        func fail(_ code: ValidationError.Code, _ key: String, _ message: String) {
            errors.append(ValidationError(code, entity: entity.name, key: key, objectID: objectID, message))
        }
        for (index, attribute) in layout.attributes.enumerated() where !attribute.isTransient {
            guard let value = storage.attributes[index] else {
                if !attribute.isOptional { fail(.missingValue, attribute.name, "a required attribute has no value") }
                continue
            }
            guard attribute.type.valueType.map({ value.type == $0 }) ?? true else {
                fail(.wrongType, attribute.name, "a \(value.type.rawValue) value does not fit a \(attribute.type.rawValue) attribute")
                continue
            }
            if let minimum = attribute.minimumValue, value.compare(to: minimum) == .orderedAscending {
                fail(.valueTooSmall, attribute.name, "the value is below the attribute's minimum")
            }
            if let maximum = attribute.maximumValue, value.compare(to: maximum) == .orderedDescending {
                fail(.valueTooLarge, attribute.name, "the value is above the attribute's maximum")
            }
            let length: Int? = switch value {
            case .string(let string): string.count
            case .binaryData(let data): data.count
            default: nil
            }
            if let length, let minimum = attribute.minimumLength, length < minimum {
                fail(.tooShort, attribute.name, "the value is \(length) long, shorter than the minimum of \(minimum)")
            }
            if let length, let maximum = attribute.maximumLength, length > maximum {
                fail(.tooLong, attribute.name, "the value is \(length) long, longer than the maximum of \(maximum)")
            }
            if let pattern = attribute.regularExpression, case .string(let string) = value,
                !Self.wholeMatch(string, pattern)
            {
                fail(.patternMismatch, attribute.name, "the value does not match the pattern \(pattern)")
            }
        }
        for (index, relationship) in layout.relationships.enumerated() where !relationship.isTransient {
            let count = storage.relationships[index].objectIDs.count
            // As Core Data (formats/coredata-lightweight-migration.md §6): an empty required to-one
            // is missing; an empty required to-many is too few only when it has a minimum, and
            // an empty optional one is valid whatever its minimum.
            if count == 0 {
                if relationship.isMandatory && !relationship.isToMany {
                    fail(.missingValue, relationship.name, "a required relationship is empty")
                } else if relationship.isMandatory {
                    fail(.tooFewObjects, relationship.name, "it holds no object, fewer than the minimum of \(relationship.minCount)")
                }
                continue
            }
            guard relationship.isToMany else { continue }
            if relationship.minCount > 0, count < relationship.minCount {
                fail(.tooFewObjects, relationship.name, "it holds \(count) object(s), fewer than the minimum of \(relationship.minCount)")
            }
            if relationship.maxCount > 0, count > relationship.maxCount {
                fail(.tooManyObjects, relationship.name, "it holds \(count) object(s), more than the maximum of \(relationship.maxCount)")
            }
        }
        return errors
    }

    private static func wholeMatch(_ string: String, _ pattern: String) -> Bool {
        // The model checked that the pattern compiles.
        guard let expression = try? NSRegularExpression(pattern: "^(?:\(pattern))$") else { return false }
        let range = NSRange(string.startIndex..., in: string)
        return expression.firstMatch(in: string, range: range) != nil
    }
}
