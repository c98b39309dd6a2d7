/// A ``FetchedResultsController``'s result as identifiers: section names and object IDs in
/// order — what a diffable data source consumes (Core Data hands an
/// `NSDiffableDataSourceSnapshot<String, NSManagedObjectID>`; this is a plain value type).
public struct FetchedResultsSnapshot: Sendable, Hashable {
    /// One section: its name and its objects' IDs, in order.
    public struct Section: Sendable, Hashable {
        public let identifier: String
        public let itemIdentifiers: [ManagedObjectID]
    }

    /// The sections, in order.
    public let sections: [Section]

    public init(sections: [Section]) {
        self.sections = sections
    }

    /// The sections' names, in order.
    public var sectionIdentifiers: [String] { sections.map(\.identifier) }
    /// Every object's ID, section after section.
    public var itemIdentifiers: [ManagedObjectID] { sections.flatMap(\.itemIdentifiers) }
    public var numberOfSections: Int { sections.count }
    public var numberOfItems: Int { sections.reduce(0) { $0 + $1.itemIdentifiers.count } }

    /// The IDs of the objects in the named section; empty for a section the snapshot lacks.
    public func itemIdentifiers(inSection identifier: String) -> [ManagedObjectID] {
        sections.first { $0.identifier == identifier }?.itemIdentifiers ?? []
    }

    /// The name of the section holding `item`, if any does.
    public func sectionIdentifier(containingItem item: ManagedObjectID) -> String? {
        sections.first { $0.itemIdentifiers.contains(item) }?.identifier
    }
}
