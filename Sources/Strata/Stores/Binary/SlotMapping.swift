import Foundation

/// Puts the values of rows read from a file (in the file schema's order) into the model's slots.
/// Models with the same version hashes have the same properties, possibly declared in another
/// order; properties are matched by name.
struct SlotMapping {
    let entity: String
    /// For each model attribute slot, the file slot it comes from (nil: not in the file).
    private let attributes: [Int?]
    private let relationships: [Int?]
    private let isIdentity: Bool

    init(file: StoreSchema.Entity, model: ManagedObjectModel, url: URL) throws {
        guard let layout = model.layout(for: file.name) else {
            throw StoreError(.unknownEntity, file: url, "the store holds objects of entity '\(file.name)', which the model does not have")
        }
        entity = file.name
        attributes = try layout.attributes.map { attribute in
            guard let index = file.attributes.firstIndex(where: { $0.name == attribute.name }) else { return nil }
            guard file.attributes[index].type == attribute.type else {
                throw StoreError(
                    .corruptFile, file: url,
                    "\(file.name).\(attribute.name) is \(file.attributes[index].type.rawValue) in the store and \(attribute.type.rawValue) in the model")
            }
            return index
        }
        relationships = layout.relationships.map { relationship in
            file.relationships.firstIndex { $0.name == relationship.name }
        }
        isIdentity = attributes == Array(file.attributes.indices).map(Optional.some)
            && relationships == Array(file.relationships.indices).map(Optional.some)
    }

    func map(_ columns: RowColumns) -> RowColumns {
        guard !isIdentity else { return columns }
        return columns.rearranged(attributes: attributes, relationships: relationships)
    }
}
