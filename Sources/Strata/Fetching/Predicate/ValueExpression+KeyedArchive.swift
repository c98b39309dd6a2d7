import Foundation

extension ValueExpression {
    /// Reads an `NSKeyedArchiver` archive of an `NSExpression`, as Xcode stores value
    /// expressions in mapping models: constants, variables (`$source`), key paths, built-in
    /// functions (`now()`, arithmetic) and `FUNCTION(receiver, "selector", …)`, aggregates.
    ///
    /// - Throws: ``FetchPredicateError`` with code `.unsupported` for bytes that are not such an
    ///   archive, or an expression class Strata does not read (one holding a predicate or a block).
    public init(keyedArchive data: Data) throws {
        let expression: ValueExpression?
        do {
            expression = try ArchivedExpression.read(archiveData: data)
        } catch let error as ArchivedExpression.Unreadable {
            throw FetchPredicateError(.unsupported, "the archived expression cannot be read: \(error.description)")
        }
        guard let expression else { throw FetchPredicateError(.unsupported, "the archive's root is nil, not an expression") }
        self = expression
    }

    /// The expression as Foundation's keyed archiver writes an `NSExpression` (what an Xcode
    /// mapping model's `valueexpressiondata` holds); arithmetic is written as Core Data's
    /// built-in functions (`add:to:`).
    ///
    /// - Throws: ``FetchPredicateError`` `.unsupported` for an expression with no archived form
    ///   Strata writes (subqueries, ternaries, casts, subscripts, placeholders, object IDs).
    public func keyedArchive() throws -> Data {
        do {
            return try ArchivedExpression.archive(self)
        } catch let error as ArchivedExpression.Unreadable {
            throw FetchPredicateError(.unsupported, error.description)
        } catch let error as TransformableValueError {
            throw FetchPredicateError(.unsupported, error.message)
        }
    }
}
