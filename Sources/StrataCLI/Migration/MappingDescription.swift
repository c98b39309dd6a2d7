import Strata

/// How `strata migrate --plan` lists a custom stage's mapping: each entity mapping with its
/// kind and policy, and what each destination property is given.
enum MappingDescription {
    static func lines(for mapping: MappingModel, source: ManagedObjectModel) -> [String] {
        var lines: [String] = []
        for entity in mapping.entityMappings {
            let policy =
                entity.policy.map { ", policy \(entity.policyClassName ?? "\(type(of: $0))")" }
                ?? entity.policyClassName.map { ", policy \($0), not in this program" } ?? ""
            lines.append("\(entity.name) (\(entity.kind.rawValue)\(policy)): \(entity.sourceEntityName ?? "∅") → \(entity.destinationEntityName ?? "∅")")
            for property in entity.attributeMappings + entity.relationshipMappings {
                lines.append("    \(property.name) = \(text(property.value))")
            }
        }
        let mapped = Set(mapping.entityMappings.compactMap(\.sourceEntityName))
        let unmapped = source.entities.filter { !$0.isAbstract && !mapped.contains($0.name) }.map(\.name)
        if !unmapped.isEmpty {
            lines.append("not mapped, so not migrated: \(unmapped.sorted().joined(separator: ", "))")
        }
        return lines
    }

    private static func text(_ value: PropertyMapping.Value) -> String {
        switch value {
        case .sourceKey(let key): "$source.\(key)"
        case .constant(let constant?): "\(constant)"
        case .constant(nil): "nil"
        case .expression(let expression): expression.description
        case .closure: "(Swift code)"
        }
    }
}
