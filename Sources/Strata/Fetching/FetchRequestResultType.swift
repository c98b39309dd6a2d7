/// What a fetch request gives, as Core Data's `NSFetchRequestResultType`: read by a fetch of a
/// ``FetchRequestResult`` request (``ManagedObjectContext/fetch(_:)->[FetchRequestResult]``).
public enum FetchRequestResultType: Sendable, Hashable {
    /// The objects (Core Data's default).
    case managedObjectResultType
    /// Their ``ManagedObjectID``s.
    case managedObjectIDResultType
    /// Dictionaries of their values (``FetchRequest/propertiesToFetch``), as `NSDictionary`.
    case dictionaryResultType
    /// One `NSNumber`: how many objects match.
    case countResultType
}

/// Whatever a fetch request gives, as Core Data's `NSFetchRequestResult`: a
/// `FetchRequest<FetchRequestResult>` gives what its ``FetchRequest/resultType`` says, as Core
/// Data's `NSFetchRequest<NSFetchRequestResult>` does, and Core Data code casts the results.
///
/// Core Data's is an Objective-C protocol its result classes adopt; Swift's protocols cannot
/// stand for themselves as a generic argument, so here it is any value.
public typealias FetchRequestResult = Any
