/// A ``ManagedObject`` subclass that can make a fetch request for its own entity, as the classes
/// Xcode generates for Core Data can (`Book.fetchRequest()`). Every subclass is one; the protocol
/// exists because a class method cannot return `FetchRequest<Self>`.
public protocol FetchRequestMaking: ManagedObject {}

extension ManagedObject: FetchRequestMaking {}

extension FetchRequestMaking {
    /// A request for the objects of the entity whose class is this class, as Xcode's generated
    /// `fetchRequest()` gives (Core Data's returns `NSFetchRequest<Book>`; this returns a
    /// ``FetchRequest`` value: declare it `var` to set its predicate or sort).
    ///
    /// ```swift
    /// var request = Book.fetchRequest()
    /// request.predicate = try FetchPredicate(format: "year < %d", 1850)
    /// let books = try context.fetch(request)    // [Book]
    /// ```
    public static func fetchRequest() -> FetchRequest<Self> {
        FetchRequest<Self>()
    }
}
