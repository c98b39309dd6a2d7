/// What happens to the objects at the other end of a relationship when its source is deleted.
public enum DeleteRule: String, Sendable, Hashable, CaseIterable, Codable {
    /// Nothing: the destination keeps pointing at the deleted object. Use with care; the
    /// store may then hold a dangling reference unless the inverse is fixed by hand.
    case noAction = "No Action"
    /// The deleted object is removed from the destinations' inverse relationship.
    case nullify = "Nullify"
    /// The destination objects are deleted too.
    case cascade = "Cascade"
    /// The delete is refused (at save, with a validation error) while a destination exists.
    case deny = "Deny"
}
