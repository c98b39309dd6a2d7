/// A transformable attribute's value that cannot be turned into a Swift value, or back: an
/// archive of a class Strata cannot decode, a value transformer nobody registered, a transformer
/// that failed, or a value that does not fit the type asked for.
///
/// The stored bytes are never lost to one: the object keeps them, saves and migrations write
/// them back unchanged, and `strata dump` writes them as base64. Catch one kind with
/// `catch let error as TransformableValueError where error.code == .unknownClass`.
public struct TransformableValueError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unknownClass, malformedArchive, unregisteredTransformer, transformerFailed, notArchivable, wrongType
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The archive holds an object of a class Strata cannot decode (``TransformableValueError/className``
        /// names it): register a value transformer for the attribute that can.
        public static let unknownClass = Code(.unknownClass)
        /// The stored bytes are not a keyed archive (nor JSON a Strata store wrote), or a damaged one.
        public static let malformedArchive = Code(.malformedArchive)
        /// The attribute names a value transformer that is not registered
        /// (``TransformableValueError/transformerName`` names it).
        public static let unregisteredTransformer = Code(.unregisteredTransformer)
        /// The attribute's value transformer returned nothing for a value, or not `Data`.
        public static let transformerFailed = Code(.transformerFailed)
        /// A value of a kind the keyed archiver does not keep (neither a property-list value nor
        /// `Codable` into one).
        public static let notArchivable = Code(.notArchivable)
        /// The value is not of the Swift type asked for.
        public static let wrongType = Code(.wrongType)

        public var description: String { base.rawValue }
    }

    public var code: Code
    /// The class an archive holds that Strata cannot decode, for `.unknownClass`.
    public var className: String?
    /// The value transformer's name, for `.unregisteredTransformer` and `.transformerFailed`.
    public var transformerName: String?
    public var message: String

    public init(_ code: Code, className: String? = nil, transformerName: String? = nil, _ message: String) {
        self.code = code
        self.className = className
        self.transformerName = transformerName
        self.message = message
    }

    public var description: String { message }
}
