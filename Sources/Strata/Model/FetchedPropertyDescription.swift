/// A fetched property: a property whose value is the result of a fetch, evaluated when read,
/// as Core Data's `NSFetchedPropertyDescription`.
///
/// Strata reads and writes fetched properties with a model file; evaluating them comes with
/// the predicate language.
public struct FetchedPropertyDescription: Sendable, Hashable {
    public var name: String
    /// The entity the fetch returns.
    public var destinationEntityName: String
    /// The fetch's predicate, in Core Data's format-string syntax.
    public var predicateFormat: String?
    public var isOptional: Bool
    public var userInfo: [String: String]

    public init(
        name: String, destination: String, predicateFormat: String? = nil, isOptional: Bool = true,
        userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.destinationEntityName = destination
        self.predicateFormat = predicateFormat
        self.isOptional = isOptional
        self.userInfo = userInfo
    }
}
