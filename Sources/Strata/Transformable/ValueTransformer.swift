#if !canImport(Darwin)
import Foundation
import Synchronization

/// The name a value transformer is registered under: Foundation's `NSValueTransformerName`,
/// which Linux's Foundation lacks. A transformable attribute names its transformer so
/// (`valueTransformerName`, Xcode's "Transformer").
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let negateBooleanTransformerName = Self("NSNegateBoolean")
    public static let isNilTransformerName = Self("NSIsNil")
    public static let isNotNilTransformerName = Self("NSIsNotNil")
    public static let unarchiveFromDataTransformerName = Self("NSUnarchiveFromData")
    public static let keyedUnarchiveFromDataTransformerName = Self("NSKeyedUnarchiveFromData")
    public static let secureUnarchiveFromDataTransformerName = Self("NSSecureUnarchiveFromData")
}

/// Foundation's `ValueTransformer`, which Linux's Foundation lacks: subclass it and register an
/// instance under the name a transformable attribute gives, as with Foundation:
///
/// ```swift
/// final class ColorTransformer: ValueTransformer {
///     override func transformedValue(_ value: Any?) -> Any? { (value as? Color)?.data }
///     override func reverseTransformedValue(_ value: Any?) -> Any? { (value as? Data).flatMap(Color.init) }
/// }
/// ValueTransformer.setValueTransformer(ColorTransformer(), forName: .init("ColorTransformer"))
/// ```
///
/// For a transformable attribute, `transformedValue(_:)` turns the attribute's value into the
/// `Data` stored, `reverseTransformedValue(_:)` the stored `Data` back. The one difference from
/// Foundation: Swift cannot make `ValueTransformer(forName:)` return a registered instance, so
/// the lookup is ``valueTransformer(forName:)``.
///
/// Transformers are called from whichever context reads or writes a value, as Core Data calls
/// Foundation's: a subclass keeps no state it does not guard.
open class ValueTransformer: @unchecked Sendable {
    // Sendable by contract, as Foundation's transformers are used: this class has no stored
    // properties, so nothing of its own can race; a subclass is called from any context's
    // executor and must, like a Foundation transformer, keep no unguarded state.

    private static let registry = Mutex<[String: ValueTransformer]>([:])

    public init() {}

    /// Whether ``reverseTransformedValue(_:)`` is supported (a transformable attribute needs it).
    open class func allowsReverseTransformation() -> Bool { true }

    /// The value transformed; by default, the value itself.
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// The value transformed back; by default, ``transformedValue(_:)`` of it, as Foundation's.
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        Self.allowsReverseTransformation() ? transformedValue(value) : nil
    }

    /// Registers `transformer` under `name`; `nil` removes the one registered.
    public class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        registry.withLock { $0[name.rawValue] = transformer }
    }

    /// The transformer registered under `name` (Foundation's `ValueTransformer(forName:)`).
    public class func valueTransformer(forName name: NSValueTransformerName) -> ValueTransformer? {
        registry.withLock { $0[name.rawValue] }
    }

    /// The names transformers are registered under.
    public class func valueTransformerNames() -> [NSValueTransformerName] {
        registry.withLock { $0.keys.sorted().map(NSValueTransformerName.init(rawValue:)) }
    }
}

/// Foundation's transformer that archives a value with a secure keyed archiver: what Core Data
/// uses when a transformable attribute names none. Subclass it, as apps do, to register it
/// under a name of their own; it archives and unarchives the property-list kinds of
/// ``ArchivedValue`` (an archive of another class unarchives to `nil`).
open class NSSecureUnarchiveFromDataTransformer: ValueTransformer, @unchecked Sendable {
    // Sendable as its superclass: no stored properties.

    /// Foundation's allow-list of classes; the kinds of ``ArchivedValue`` here.
    open class var allowedTopLevelClasses: [AnyClass] { [NSArray.self, NSDictionary.self, NSSet.self, NSString.self, NSNumber.self] }

    open override func transformedValue(_ value: Any?) -> Any? {
        guard let value else { return nil }
        return try? ArchivedValue(any: value).keyedArchive()
    }

    open override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data, let archived = try? ArchivedValue(keyedArchive: data), archived != .null else { return nil }
        return archived.anyValue
    }
}
#endif
