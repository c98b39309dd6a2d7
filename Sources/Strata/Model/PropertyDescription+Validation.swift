/// Core Data's `setValidationPredicates(_:withValidationWarnings:)` on attributes and
/// relationships, and the model DSL's way to say the same: `.validated(by:warning:)`.
///
/// Xcode's model editor has no field for such predicates (its minimum, maximum and pattern are
/// ``AttributeDescription/minimumValue`` and the like), so a model file neither holds nor
/// writes them: they are given in code.
extension AttributeDescription {
    /// Sets the predicates a value must satisfy and the warning each reports; a predicate
    /// without a warning reports one naming it.
    public mutating func setValidationPredicates(_ predicates: [FetchPredicate], withValidationWarnings warnings: [String]) {
        validationPredicates = predicates
        validationWarnings = validationWarningList(warnings, for: predicates)
    }

    /// The attribute, with one more validation predicate (for the model DSL).
    public func validated(by predicate: FetchPredicate, warning: String) -> AttributeDescription {
        var copy = self
        copy.setValidationPredicates(validationPredicates + [predicate], withValidationWarnings: validationWarnings + [warning])
        return copy
    }
}

extension RelationshipDescription {
    /// Sets the predicates the relationship's value must satisfy and the warning each reports;
    /// a predicate without a warning reports one naming it.
    public mutating func setValidationPredicates(_ predicates: [FetchPredicate], withValidationWarnings warnings: [String]) {
        validationPredicates = predicates
        validationWarnings = validationWarningList(warnings, for: predicates)
    }

    /// The relationship, with one more validation predicate (for the model DSL).
    public func validated(by predicate: FetchPredicate, warning: String) -> RelationshipDescription {
        var copy = self
        copy.setValidationPredicates(validationPredicates + [predicate], withValidationWarnings: validationWarnings + [warning])
        return copy
    }
}

/// One warning per predicate: those given, then for each predicate without one, its format.
private func validationWarningList(_ warnings: [String], for predicates: [FetchPredicate]) -> [String] {
    predicates.indices.map { $0 < warnings.count ? warnings[$0] : "the value does not satisfy \(predicates[$0])" }
}
