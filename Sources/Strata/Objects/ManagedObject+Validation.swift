import Foundation

extension ManagedObject {
    /// Every way the object's current values break its entity's rules: each attribute through
    /// ``validateValue(_:forKey:)`` (a subclass's checks with the model's), each relationship's
    /// counts.
    func validateProperties() throws {
        var errors = relationshipProblems()
        let attributes = layout.attributes
        for index in attributes.indices where !attributes[index].isTransient {
            var value = storage.attributes[index]
            do {
                try validateValue(&value, forKey: attributes[index].name)
            } catch let error as ValidationError {
                errors.append(error)  // combining(_:) flattens several
            }
        }
        if let error = ValidationError.combining(errors) { throw error }
    }

    /// Every way `value` breaks the rules of the attribute at `index`.
    func attributeProblems(at index: Int, value: AttributeValue?) -> [ValidationError] {
        var errors: [ValidationError] = []
        // Reading the description in place: binding it to a variable copied it (a dozen
        // fields) per attribute per object, a third of validating.
        let attributes = layout.attributes
        func fail(_ code: ValidationError.Code, _ message: String) {
            errors.append(ValidationError(code, entity: entity.name, key: attributes[index].name, objectID: objectID, message))
        }
        guard let value else {
            if !attributes[index].isOptional { fail(.missingValue, "a required attribute has no value") }
            return errors
        }
        let type = attributes[index].type
        guard type.valueType.map({ value.type == $0 }) ?? true else {
            fail(.wrongType, "a \(value.type.rawValue) value does not fit a \(type.rawValue) attribute")
            return errors
        }
        if let minimum = attributes[index].minimumValue, value.compare(to: minimum) == .orderedAscending {
            fail(.valueTooSmall, "the value is below the attribute's minimum")
        }
        if let maximum = attributes[index].maximumValue, value.compare(to: maximum) == .orderedDescending {
            fail(.valueTooLarge, "the value is above the attribute's maximum")
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
                fail(.tooShort, "the value is \(length) long, shorter than the minimum of \(minimum)")
            }
            if let length, let maximum = maximumLength, length > maximum {
                fail(.tooLong, "the value is \(length) long, longer than the maximum of \(maximum)")
            }
        }
        if let pattern = attributes[index].regularExpression, case .string(let string) = value, !Self.wholeMatch(string, pattern) {
            fail(.patternMismatch, "the value does not match the pattern \(pattern)")
        }
        if !attributes[index].validationPredicates.isEmpty {
            errors += predicateProblems(
                attributes[index].validationPredicates, attributes[index].validationWarnings, key: attributes[index].name,
                on: EvaluationValue(value))
        }
        return errors
    }

    /// The validation predicates `value` breaks (`SELF` being the value), each reported with
    /// its warning; one that cannot be evaluated is reported as broken, saying why.
    func predicateProblems(_ predicates: [FetchPredicate], _ warnings: [String], key: String, on value: EvaluationValue) -> [ValidationError] {
        guard let graph else { return [] }
        let evaluator = PredicateEvaluator(source: ContextObjectSource(graph: graph, includesPendingChanges: true))
        var errors: [ValidationError] = []
        for (index, predicate) in predicates.enumerated() {
            let message: String
            do {
                if try evaluator.evaluate(predicate, on: value) { continue }
                message = warnings[index]
            } catch {
                message = "the validation predicate \(predicate) cannot be evaluated: \(error)"
            }
            errors.append(ValidationError(.predicateFailed, entity: entity.name, key: key, objectID: objectID, message))
        }
        return errors
    }

    /// Every way the object's relationships break their counts.
    func relationshipProblems() -> [ValidationError] {
        var errors: [ValidationError] = []
        func fail(_ code: ValidationError.Code, _ key: String, _ message: String) {
            errors.append(ValidationError(code, entity: entity.name, key: key, objectID: objectID, message))
        }
        let relationships = layout.relationships
        for index in relationships.indices where !relationships[index].isTransient {
            let (name, isToMany, isMandatory) = (relationships[index].name, relationships[index].isToMany, relationships[index].isMandatory)
            let (minCount, maxCount) = (relationships[index].minCount, relationships[index].maxCount)
            // A relationship no count and no predicate can fail is not looked at: a to-many still
            // a fault stays one (saving 10,000 people with a changed score read every one's
            // `reports` for nothing).
            let canFail = isMandatory || !relationships[index].validationPredicates.isEmpty || (isToMany && (minCount > 1 || maxCount > 0))
            guard canFail else { continue }
            let count = storage.relationships[index].count
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
            if !relationships[index].validationPredicates.isEmpty, let graph {
                let source = ContextObjectSource(graph: graph, includesPendingChanges: true)
                let targets = storage.relationships[index].objectIDs.compactMap { source.object(for: $0) }.map(EvaluationValue.object)
                errors += predicateProblems(
                    relationships[index].validationPredicates, relationships[index].validationWarnings, key: name,
                    on: isToMany ? .collection(targets) : targets.first ?? .null)
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

    /// The relationships with the deny rule that still hold objects not deleted too.
    func deleteDenials() -> [ValidationError] {
        var errors: [ValidationError] = []
        for (index, relationship) in layout.relationships.enumerated() where relationship.deleteRule == .deny {
            let remaining = storage.relationships[index].objectIDs.filter { graph?.registered[$0]?.isDeleted != true }
            if !remaining.isEmpty {
                errors.append(
                    ValidationError(
                        .deleteDenied, entity: entity.name, key: relationship.name, objectID: objectID,
                        "the object cannot be deleted while its '\(relationship.name)' relationship holds "
                            + "\(remaining.count) object(s) (delete rule: deny)"))
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
