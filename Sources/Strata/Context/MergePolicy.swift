/// What a save does when another save changed or deleted the same objects since the context
/// read them: Core Data's merge policies.
public enum MergePolicy: Sendable, Hashable {
    /// The save fails with every conflict (``PersistenceError`` `.conflict`, with its
    /// ``MergeConflict``s), and nothing is saved. The default, as in Core Data.
    case error
    /// Properties the other save changed keep the store's values; the context's other changes
    /// are saved (`NSMergeByPropertyStoreTrumpMergePolicy`).
    case mergeByPropertyStoreTrump
    /// The context's changed properties win; properties only the other save changed keep the
    /// store's values (`NSMergeByPropertyObjectTrumpMergePolicy`).
    case mergeByPropertyObjectTrump
    /// The context's objects are written whole over the store's (`NSOverwriteMergePolicy`).
    case overwrite
    /// The context's changes to conflicting objects are thrown away and the store's kept
    /// (`NSRollbackMergePolicy`).
    case rollback
}
