import Logging

/// Where typed accessors report what they cannot throw.
let attributeLogger = Logger(label: "strata.objects")

/// A typed accessor for an attribute of a ``ManagedObject`` subclass.
///
/// ```swift
/// final class Book: ManagedObject {
///     @Attribute var title: String              // Core Data: @NSManaged var title: String
///     @Attribute var subtitle: String?
///     @Attribute("pages") var pageCount: Int    // the attribute "pages"
/// }
/// ```
///
/// Without a key the attribute is the one named as the property, as `@NSManaged` names it; a
/// key names another. Reading converts the stored value to `Value`
/// (an `Int` reads an attribute of any integer width); writing converts it to the attribute's
/// type. A value that does not fit (say 70,000 into an Integer 16 attribute) is kept as given
/// and refused by validation when the context saves, with a typed error: a setter cannot throw.
/// Reading a non-optional property that has no value yet is a programmer error: give the
/// attribute a default value, or declare the property optional.
///
/// A transformable attribute's value goes through the attribute's value transformer (Core Data's
/// keyed archive by default; ``TransformableAttribute``). A value the accessor cannot give —
/// binary data whose external file the store could not read (``ExternalDataReference``), an
/// archive of a class Strata cannot decode, a transformer nobody registered — reads as `nil`
/// through an optional property, and the error is logged; ``ManagedObject/value(forKey:as:)``
/// and ``ManagedObject/value(forKey:)`` throw it.
@propertyWrapper
public struct Attribute<Value: AttributeValueConvertible>: KeyNamingWrapper {
    /// The attribute's name in the entity; empty until first use for a wrapper declared
    /// without one (the property's name then).
    public let key: String

    /// The accessor of the attribute `key`.
    public init(_ key: String) {
        self.key = key
    }

    /// The accessor of the attribute named as the property it wraps.
    public init() {
        self.key = ""
    }

    @available(*, unavailable, message: "@Attribute is only available on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unavailable: the compiler rejects every use") }
        set { fatalError("unavailable: the compiler rejects every use") }
    }

    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Self>
    ) -> Value {
        get {
            let (key, slot) = WrapperKeys.slot(of: object, storageKeyPath)
            guard let index = slot?.attributeIndex else {
                return probed(object, key: key, wrappedKeyPath)
            }
            let stored = object.attributeValue(at: index)
            if case .externalDataReference(let reference)? = stored, let absent = Value.fromAttributeValue(nil) {
                attributeLogger.error("\(object.entity.name).\(key): \(reference.error)")
                return absent
            }
            if case .transformable? = stored {
                return transformed(stored, object: object, key: key, index: index)
            }
            guard let value = Value.fromAttributeValue(stored) else {
                preconditionFailure(
                    "\(object.entity.name).\(key) holds \(stored.map { "a \($0.type.rawValue) value" } ?? "no value"), "
                        + "which is not a \(Value.self): give it a default value or declare the property optional")
            }
            return value
        }
        set {
            let (key, slot) = WrapperKeys.slot(of: object, storageKeyPath)
            // A key the entity lacks stops the program, with the reason.
            let index = slot?.attributeIndex ?? object.attributeIndex(forKey: key, declaredIn: Object.self)
            let type = object.layout.attributes[index].type
            let value: AttributeValue?
            if type == .transformable {
                do {
                    value = try newValue.attributeValue(for: object.layout.attributes[index])
                } catch {
                    preconditionFailure("\(object.entity.name).\(key): \(error) (use a type its transformer can store)")
                }
            } else {
                value = newValue.attributeValue
            }
            object.willChangeValue(forKey: key)
            object.setAttributeValue(value.map { $0.converted(to: type) ?? $0 }, at: index)
            object.didChangeValue(forKey: key)
        }
    }

    /// The getter of an attribute the object's entity does not have: on a probe reading a key
    /// path (``KeyPathNames``), a stand-in; otherwise a programmer error.
    private static func probed<Object: ManagedObject>(_ object: Object, key: String, _ keyPath: AnyKeyPath) -> Value {
        guard KeyPathNames.isProbe(object) else {
            _ = object.attributeIndex(forKey: key, declaredIn: Object.self)  // stops the program with the reason
            preconditionFailure()
        }
        KeyPathNames.record(key, reachedBy: keyPath)
        guard let value = KeyPathNames.standIn(Value.self) else { KeyPathNames.unmodelled(keyPath) }
        return value
    }

    /// A transformable attribute's value, through its transformer. One that cannot be made a
    /// `Value` (an archive of an unknown class, an unregistered transformer) reads as `nil`
    /// through an optional property, the error logged; ``ManagedObject/value(forKey:)`` and
    /// ``ManagedObject/value(forKey:as:)`` throw it.
    private static func transformed(_ stored: AttributeValue?, object: ManagedObject, key: String, index: Int) -> Value {
        do {
            if let value = try Value.fromAttributeValue(stored, of: object.layout.attributes[index]) { return value }
        } catch {
            if let absent = Value.fromAttributeValue(nil) {
                attributeLogger.error("\(object.entity.name).\(key): \(error)")
                return absent
            }
            preconditionFailure("\(object.entity.name).\(key): \(error) (declare the property optional, or read it with value(forKey:as:))")
        }
        preconditionFailure("\(object.entity.name).\(key) holds a transformable value that is not a \(Value.self)")
    }
}

extension ManagedObject {
    func attributeIndex(forKey key: String, declaredIn type: ManagedObject.Type) -> Int {
        guard case .attribute(let index)? = layout.slots[key] else {
            preconditionFailure("\(type) declares @Attribute(\"\(key)\"), but entity \(entity.name) has no such attribute")
        }
        return index
    }
}
