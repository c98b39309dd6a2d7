import Foundation

extension ManagedObjectContext {
    /// Starts an asynchronous fetch and returns its result at once, as Core Data's
    /// `execute(_:)` with an `NSAsynchronousFetchRequest`: the fetch runs as a later job of
    /// this context's executor, then the request's completion block is given the result.
    ///
    /// The fetch answers as ``fetch(_:)->[Result]`` would then, for any result type: objects,
    /// `NSDictionary`, ``ManagedObjectID``, `NSNumber` (a count) or ``FetchRequestResult``
    /// with a ``FetchRequest/resultType``.
    @discardableResult
    public func execute<Result>(_ request: AsynchronousFetchRequest<Result>) throws -> AsynchronousFetchResult<Result> {
        let result = AsynchronousFetchResult(request: request, context: self)
        graph.pendingAsynchronousFetches.append(result)
        // The job captures only the context: the result stays in the context's own state.
        Task { self.runPendingAsynchronousFetches() }
        return result
    }

    /// Runs the asynchronous fetches executed so far, in the order executed.
    func runPendingAsynchronousFetches() {
        let pending = graph.pendingAsynchronousFetches
        graph.pendingAsynchronousFetches = []
        for fetch in pending { fetch.run(in: self) }
    }

    /// The results of a request of any result type, as the `fetch` overload of its type gives them.
    func fetchResults<Result>(_ request: FetchRequest<Result>) throws -> [Result] {
        var typed = request.retyped(to: FetchRequestResult.self)
        if typed.entityName == nil, let type = Result.self as? ManagedObject.Type {
            // The class names the entity, as for `fetch(_:)` of objects.
            typed.entityName = graph.entityName(ofClass: type)
        }
        switch Result.self {
        case is ManagedObject.Type: typed.resultType = .managedObjectResultType
        case is NSDictionary.Type: typed.resultType = .dictionaryResultType
        case is ManagedObjectID.Type: typed.resultType = .managedObjectIDResultType
        case is NSNumber.Type: typed.resultType = .countResultType
        default: break
        }
        return try fetch(typed).compactMap { $0 as? Result }
    }
}

/// An asynchronous fetch executed and not yet run, held by its context until its job runs.
protocol PendingAsynchronousFetch: AnyObject {
    /// Runs the fetch (unless cancelled) and gives its result to the completion block.
    func run(in context: isolated ManagedObjectContext)
}

extension AsynchronousFetchResult: PendingAsynchronousFetch {
    func run(in context: isolated ManagedObjectContext) {
        if progress?.isCancelled == true {
            operationError = CancellationError()
        } else {
            do {
                let found = try context.fetchResults(fetchRequest.fetchRequest)
                progress?.totalUnitCount = Int64(found.count)
                progress?.completedUnitCount = Int64(found.count)
                finalResult = found
            } catch {
                operationError = error
            }
        }
        fetchRequest.completionBlock?(self)
    }
}
