import Foundation

/// Fetch requests typed as Core Data code types them: `NSFetchRequest<NSDictionary>`,
/// `NSFetchRequest<NSManagedObjectID>`, `NSFetchRequest<NSNumber>` and
/// `NSFetchRequest<NSFetchRequestResult>` with a `resultType`. Each names its entity
/// (``FetchRequest/entityName``), as Core Data's do.
extension ManagedObjectContext {
    /// The dictionaries of a request's values (Core Data's `.dictionaryResultType`): what
    /// ``fetchDictionaries(_:)`` gives, as `NSDictionary`s.
    public func fetch(_ request: FetchRequest<NSDictionary>) throws -> [NSDictionary] {
        try fetchDictionaries(graph.objectRequest(request)).map { NSDictionary(dictionary: $0) }
    }

    /// The IDs of the objects a request describes (Core Data's `.managedObjectIDResultType`).
    public func fetch(_ request: FetchRequest<ManagedObjectID>) throws -> [ManagedObjectID] {
        try fetchObjectIDs(graph.objectRequest(request))
    }

    /// How many objects a request describes, as one `NSNumber` (Core Data's `.countResultType`).
    public func fetch(_ request: FetchRequest<NSNumber>) throws -> [NSNumber] {
        [NSNumber(value: try count(for: graph.objectRequest(request)))]
    }

    /// What the request's ``FetchRequest/resultType`` says: the objects, their IDs, dictionaries
    /// (`NSDictionary`) or a count (one `NSNumber`), as Core Data's
    /// `fetch(_: NSFetchRequest<NSFetchRequestResult>)` gives them for the caller to cast.
    public func fetch(_ request: FetchRequest<FetchRequestResult>) throws -> [FetchRequestResult] {
        let objects = try graph.objectRequest(request)
        switch request.resultType {
        case .managedObjectResultType: return try fetch(objects)
        case .managedObjectIDResultType: return try fetchObjectIDs(objects)
        case .dictionaryResultType: return try fetchDictionaries(objects).map { NSDictionary(dictionary: $0) }
        case .countResultType: return [NSNumber(value: try count(for: objects))]
        }
    }

    /// How many objects a request of any result type describes: Core Data's
    /// `count(for: NSFetchRequest<NSFetchRequestResult>)`.
    public func count<Result>(for request: FetchRequest<Result>) throws -> Int {
        try count(for: graph.objectRequest(request))
    }
}

extension ObjectGraph {
    /// The request as one for managed objects: its entity is the one it names, or the one whose
    /// class its result is.
    ///
    /// - Throws: ``PersistenceError`` `.unknownEntity` for a request that names no entity and
    ///   whose result is not a class of exactly one entity.
    func objectRequest<Result>(_ request: FetchRequest<Result>) throws -> FetchRequest<ManagedObject> {
        var objects = request.retyped(to: ManagedObject.self)
        guard objects.entityName == nil else { return objects }
        guard let type = Result.self as? ManagedObject.Type, case let layouts = model.layouts(forClass: type), layouts.count == 1 else {
            throw PersistenceError(
                .unknownEntity, "a FetchRequest<\(Result.self)> names its entity: FetchRequest<\(Result.self)>(entityName: …)")
        }
        objects.entityName = layouts[0].name
        return objects
    }
}
