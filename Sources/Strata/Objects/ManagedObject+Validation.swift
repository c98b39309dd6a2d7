import Foundation

extension ManagedObject {
    /// Every way the object's current values break its entity's rules.
    func validationErrors() -> [ValidationError] {
        var errors: [ValidationError] = []
        func fail(_ code: ValidationError.Code, _ key: String, _ message: String) {
            errors.append(ValidationError(code, entity: entity.name, key: key, objectID: objectID, message))
        }
        // By index, reading each description in place: binding each to a variable copied the
        // whole description (a dozen fields) per attribute per object, a third of validating.
        let attributes = layout.attributes
        for index in attributes.indices where !attributes[index].isTransient {
            guard let value = storage.attributes[index] else {
                if !attributes[index].isOptional { fail(.missingValue, attributes[index].name, "a required attribute has no value") }
                continue
            }
            let type = attributes[index].type
            guard type.valueType.map({ value.type == $0 }) ?? true else {
                fail(.wrongType, attributes[index].name, "a \(value.type.rawValue) value does not fit a \(type.rawValue) attribute")
                continue
            }
            if let minimum = attributes[index].minimumValue, value.compare(to: minimum) == .orderedAscending {
                fail(.valueTooSmall, attributes[index].name, "the value is below the attribute's minimum")
            }
            if let maximum = attributes[index].maximumValue, value.compare(to: maximum) == .orderedDescending {
                fail(.valueTooLarge, attributes[index].name, "the value is above the attribute's maximum")
            }
            let (minimumLength, maximumLength) = (attributes[index].minimumLength, attributes[index].maximumLength)
            if minimumLength != nil || maximumLength != nil {
                // Counted only when there is a rule: a string's count walks its characters.
                let length: Int? = switch value {
                case .string(let string): string.count
                case .binaryData(let data): data.count
                default: nil
                }
                if let length, let minimum = minimumLength, length < minimum {
                    fail(.tooShort, attributes[index].name, "the value is \(length) long, shorter than the minimum of \(minimum)")
                }
                if let length, let maximum = maximumLength, length > maximum {
                    fail(.tooLong, attributes[index].name, "the value is \(length) long, longer than the maximum of \(maximum)")
                }
            }
            if let pattern = attributes[index].regularExpression, case .string(let string) = value,
                !Self.wholeMatch(string, pattern)
            {
                fail(.patternMismatch, attributes[index].name, "the value does not match the pattern \(pattern)")
            }
        }
        let relationships = layout.relationships
        for index in relationships.indices where !relationships[index].isTransient {
            let count = storage.relationships[index].count
            let (name, isToMany, isMandatory) = (relationships[index].name, relationships[index].isToMany, relationships[index].isMandatory)
            let (minCount, maxCount) = (relationships[index].minCount, relationships[index].maxCount)
            // As Core Data (formats/coredata-lightweight-migration.md §6): an empty required to-one
            // is missing; an empty required to-many is too few only when it has a minimum, and
            // an empty optional one is valid whatever its minimum.
            if count == 0 {
                if isMandatory && !isToMany {
                    fail(.missingValue, name, "a required relationship is empty")
                } else if isMandatory {
                    fail(.tooFewObjects, name, "it holds no object, fewer than the minimum of \(minCount)")
                }
                continue
            }
            guard isToMany else { continue }
            if minCount > 0, count < minCount {
                fail(.tooFewObjects, name, "it holds \(count) object(s), fewer than the minimum of \(minCount)")
            }
            if maxCount > 0, count > maxCount {
                fail(.tooManyObjects, name, "it holds \(count) object(s), more than the maximum of \(maxCount)")
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
