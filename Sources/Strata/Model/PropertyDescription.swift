/// A property of an entity, as Core Data's `NSPropertyDescription`: an
/// ``AttributeDescription``, a ``RelationshipDescription`` or a
/// ``FetchedPropertyDescription``.
///
/// ``EntityDescription/properties`` and ``EntityDescription/propertiesByName`` hold them as
/// `any PropertyDescription`; tell the kinds apart as Core Data code does, with `as?`:
///
/// ```swift
/// if let attribute = entity.propertiesByName["title"] as? AttributeDescription { … }
/// ```
public protocol PropertyDescription: Sendable {
    /// The property's name, unique in its entity and the entity's ancestors.
    var name: String { get set }
    /// Whether the property may be empty when its object is saved.
    var isOptional: Bool { get set }
    /// Whatever the model file or the code attached to the property.
    var userInfo: [String: String] { get set }
}

extension AttributeDescription: PropertyDescription {}
extension RelationshipDescription: PropertyDescription {}
extension FetchedPropertyDescription: PropertyDescription {}
