/// A predicate or expression that cannot be parsed or evaluated: a syntax error (with its
/// column and what was expected there), a key the entity does not have, an argument that is
/// missing or of the wrong kind.
public struct FetchPredicateError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of problem.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case syntax, unknownKey, badArgument, unsupported, evaluation
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The format string does not parse.
        public static let syntax = Code(.syntax)
        /// A key path names a property the entity does not have.
        public static let unknownKey = Code(.unknownKey)
        /// A `%@`-style argument is missing or of the wrong kind, or a `$VARIABLE` has no value.
        public static let badArgument = Code(.badArgument)
        /// The predicate uses something Strata does not evaluate (it says which).
        public static let unsupported = Code(.unsupported)
        /// The predicate parses but cannot be evaluated on these objects (a type mismatch, say).
        public static let evaluation = Code(.evaluation)

        public var description: String { base.rawValue }
    }

    public var code: Code
    public var message: String
    /// The 1-based column of the format string where the problem is, for syntax errors.
    public var column: Int?

    public init(_ code: Code, _ message: String, column: Int? = nil) {
        self.code = code
        self.message = message
        self.column = column
    }

    public var description: String { message }
}
