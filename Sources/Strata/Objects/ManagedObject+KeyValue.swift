import OrderedCollections

extension ManagedObject {
    /// The value of a property by name, as Core Data's key-value coding gives it: an attribute's
    /// value (`String`, `Date`, …; a number as an `NSNumber`, as Core Data's, so that `as? Int`
    /// reads an Integer 16 attribute — see ``AttributeValue/keyValue``), a to-one relationship's object, a to-many
    /// relationship's `Set<ManagedObject>` or, when ordered, `[ManagedObject]`; `nil` for no
    /// value.
    ///
    /// A transformable attribute's value is what its value transformer makes of the stored bytes
    /// (Core Data's keyed archive by default: `[Any]`, `[String: Any]`, `String`, … as
    /// ``ArchivedValue/anyValue`` gives them).
    ///
    /// A key the class computes (``computedKeys``) gives what its property does, as Core Data's
    /// key-value coding calls a subclass's accessor.
    ///
    /// - Throws: ``ValidationError`` with code `.unknownKey` when the entity has no such property
    ///   and the class computes no such key;
    ///   ``StoreError`` with code `.missingExternalData` for binary data whose file the store
    ///   could not read (``ExternalDataReference``); ``TransformableValueError`` for a
    ///   transformable value its transformer cannot give (an archive of an unknown class, an
    ///   unregistered transformer); what a computed key's closure throws; the store's error
    ///   for a relationship it cannot read at the fault's first use (a database gone away, a
    ///   damaged file: `StoreError`, `PostgresStoreError`), where the typed accessor logs it
    ///   and gives no objects.
    public func value(forKey key: String) throws -> Any? {
        if layout.slots[key] == nil, let computed = layout.computedKeys[key] { return try computed.value(of: self) }
        switch try slot(forKey: key) {
        case .attribute(let index):
            let value = attributeValue(at: index)
            if case .externalDataReference(let reference)? = value { throw reference.error }
            if case .transformable(let data)? = value, layout.attributes[index].type == .transformable {
                return try layout.attributes[index].transformableCoding.value(fromStored: data)
            }
            return value?.keyValue
        case .relationship(let index):
            try checkReadable(relationshipAt: index)
            let objects = relatedObjects(at: index)
            let relationship = layout.relationships[index]
            if !relationship.isToMany { return objects.first }
            return relationship.isOrdered ? objects as Any : Set(objects) as Any
        }
    }

    /// Sets a property by name, checking the value against the entity: an attribute takes a
    /// value of its type (integers of any width that fit, for example), a to-one relationship
    /// an object of its destination entity, a to-many one a `Set` or an array of them.
    /// Setting a relationship updates its inverse. A transformable attribute takes its value
    /// itself (Foundation's kinds, or a `Codable` value), stored through its value transformer as
    /// Core Data stores it; ``setPrimitiveValue(_:forKey:)`` takes the stored bytes.
    ///
    /// - Throws: ``ValidationError``: `.unknownKey`, `.wrongType` (also for a value the
    ///   attribute's transformer cannot store), or `.wrongContext` for an object of another
    ///   context. Nothing is changed when it throws.
    public func setValue(_ value: Any?, forKey key: String) throws {
        let slot = try slot(forKey: key)
        willChangeValue(forKey: key)
        defer { didChangeValue(forKey: key) }
        try setValue(value, forKey: key, in: slot)
    }

    /// Sets a property by name, without telling ``willChangeValue(forKey:)`` and
    /// ``didChangeValue(forKey:)``.
    private func setValue(_ value: Any?, forKey key: String, in slot: EntityLayout.Slot) throws {
        switch slot {
        case .attribute(let index):
            let attribute = layout.attributes[index]
            guard let value else {
                setAttributeValue(nil, at: index)
                return
            }
            if attribute.type == .transformable, !(value is AttributeValue) {
                // Through the attribute's value transformer, as Core Data stores it.
                do {
                    setAttributeValue(.transformable(try attribute.transformableCoding.storedData(for: value)), at: index)
                } catch let error as TransformableValueError {
                    throw ValidationError(.wrongType, entity: entity.name, key: key, objectID: objectID, error.message)
                }
                return
            }
            guard let converted = AttributeValue.make(from: value, as: attribute.type) else {
                throw ValidationError(
                    .wrongType, entity: entity.name, key: key, objectID: objectID,
                    "a \(type(of: value)) value does not fit a \(attribute.type.rawValue) attribute")
            }
            setAttributeValue(converted, at: index)
        case .relationship(let index):
            let relationship = layout.relationships[index]
            let objects: [ManagedObject]
            switch value {
            case nil: objects = []
            case let object as ManagedObject where !relationship.isToMany: objects = [object]
            case let set as Set<ManagedObject> where relationship.isToMany: objects = Array(set)
            case let array as [ManagedObject] where relationship.isToMany: objects = array
            case let set as OrderedSet<ManagedObject> where relationship.isToMany: objects = Array(set)
            default:
                let expected = relationship.isToMany ? "a set or an array of objects" : "an object"
                throw ValidationError(
                    .wrongType, entity: entity.name, key: key, objectID: objectID,
                    "the relationship takes \(expected), not a \(type(of: value!))")
            }
            try setRelatedObjects(objects, at: index)
        }
    }

    /// An attribute's value as `T`, as a typed property (``Attribute``) reads it — a
    /// transformable one through its value transformer — but throwing where the property would
    /// read `nil` or stop: a value that is not a `T`, one its transformer cannot give, external
    /// data whose file is missing. `nil` when the attribute has no value.
    ///
    /// ```swift
    /// let tags = try book.value(forKey: "tags", as: [String].self)
    /// ```
    ///
    /// - Throws: ``ValidationError`` (`.unknownKey`, `.wrongType`), ``TransformableValueError``,
    ///   ``StoreError`` `.missingExternalData`.
    public func value<T: AttributeValueConvertible>(forKey key: String, as type: T.Type) throws -> T? {
        guard case .attribute(let index) = try slot(forKey: key) else {
            throw ValidationError(.wrongType, entity: entity.name, key: key, "value(forKey:as:) reads attributes")
        }
        let stored = attributeValue(at: index)
        guard let stored else { return nil }
        if case .externalDataReference(let reference) = stored { throw reference.error }
        guard let value = try T.fromAttributeValue(stored, of: layout.attributes[index]) else {
            if case .transformable = stored, T.decodesTransformables(layout.attributes[index]), T.self is any Decodable.Type { return nil }
            throw ValidationError(
                .wrongType, entity: entity.name, key: key, objectID: objectID, "the attribute holds a \(stored.type.rawValue) value, not a \(T.self)")
        }
        return value
    }

    /// A property's value without the class in between, as Core Data's
    /// `primitiveValue(forKey:)`: what ``value(forKey:)`` gives (an attribute's Swift value, a
    /// relationship's object or objects), but never through a key the class computes — what a
    /// custom accessor reads its own property with:
    ///
    /// ```swift
    /// var title: String? {
    ///     willAccessValue(forKey: "title")
    ///     defer { didAccessValue(forKey: "title") }
    ///     return try? primitiveValue(forKey: "title") as? String
    /// }
    /// ```
    ///
    /// - Throws: ``ValidationError`` `.unknownKey` for a key the entity does not have (Core
    ///   Data raises); what ``value(forKey:)`` throws.
    public func primitiveValue(forKey key: String) throws -> Any? {
        _ = try slot(forKey: key)
        return try value(forKey: key)
    }

    /// Sets a property without the class in between, as Core Data's
    /// `setPrimitiveValue(_:forKey:)`: takes what ``setValue(_:forKey:)`` takes, and an
    /// ``AttributeValue`` as stored (a transformable attribute's bytes, say). Unlike Core
    /// Data's, the change is recorded (the object is updated, and saved) whether or not
    /// ``willChangeValue(forKey:)`` and ``didChangeValue(forKey:)`` surround it.
    ///
    /// - Throws: ``ValidationError`` when the key is unknown or the value does not fit.
    public func setPrimitiveValue(_ value: Any?, forKey key: String) throws {
        try setValue(value, forKey: key, in: slot(forKey: key))
    }

    /// An attribute's value as stored, without conversion to a Swift type: an
    /// ``AttributeValue`` (a transformable attribute's bytes, an external value's reference).
    ///
    /// - Throws: ``ValidationError`` when the key is unknown or not an attribute.
    public func primitiveAttributeValue(forKey key: String) throws -> AttributeValue? {
        guard case .attribute(let index) = try slot(forKey: key) else {
            throw ValidationError(.wrongType, entity: entity.name, key: key, "primitive attribute values are for attributes")
        }
        return attributeValue(at: index)
    }

    /// The properties changed since the object was last saved or fetched, with their new
    /// values: attributes as their Swift values, relationships as object IDs (`[ManagedObjectID]`
    /// for to-many). A `nil` value means the property was cleared.
    public func changedValues() -> [String: (any Sendable)?] {
        let current = values(of: storage, keys: nil)
        guard let snapshot else { return isInserted ? current : [:] }
        let changed = Set(changedKeys(from: snapshot))
        return current.filter { changed.contains($0.key) }
    }

    /// The persistent properties changed since the context last posted ``ObjectsDidChange``
    /// (at the end of a `perform` block, a save, ``ManagedObjectContext/processPendingChanges()``),
    /// with the values they had then: Core Data's `changedValuesForCurrentEvent()`.
    ///
    /// An observer of ``ObjectsDidChange`` reads what each object it is told of was before the
    /// change announced. Core Data's reference calls these the "old values" (Objective-C) and
    /// the "new values" (Swift) of the same method; Strata gives the old ones, which is what
    /// the method is for — the new ones are the object's own. A property set back to its value
    /// before is no change; an object inserted since the last notice had no values then, and
    /// reports none. Values are in the form of ``changedValues()``; transient properties are
    /// left out, as Core Data leaves them out.
    public func changedValuesForCurrentEvent() -> [String: (any Sendable)?] {
        guard let graph, let before = graph.valuesBeforeCurrentEvent(of: self) else { return [:] }
        return values(of: before, keys: persistentChangedKeys(from: before))
    }

    /// The values the store had when the object was last read or saved, for `keys` (all
    /// properties when `nil`), in the same form as ``changedValues()``.
    public func committedValues(forKeys keys: [String]?) -> [String: (any Sendable)?] {
        guard let snapshot else { return [:] }
        return values(of: snapshot, keys: keys)
    }

    // MARK: Slots

    func slot(forKey key: String) throws -> EntityLayout.Slot {
        guard let slot = layout.slots[key] else {
            throw ValidationError(
                .unknownKey, entity: entity.name, key: key, objectID: objectID, "the entity has no property with this name")
        }
        return slot
    }

    /// Loads a fault's values before they are read or written: from the row the fetch that
    /// made it read, if it holds one that is not stale; otherwise from the latest generation
    /// unless the context is pinned to one.
    func willAccessValues() {
        guard isFault, let graph else { return }
        if graph.fireFromCache(self) { return }
        graph.beginRead()
        defer { graph.endRead() }
        graph.fulfillFault(self)
    }

    func attributeValue(at index: Int) -> AttributeValue? {
        willAccessValues()
        return storedAttributeValue(at: index)
    }

    func setAttributeValue(_ value: AttributeValue?, at index: Int) {
        willAccessValues()
        guard storedAttributeValue(at: index) != value else { return }
        graph?.willChange(self)
        storage.attributes[index] = value
        graph?.didChange(self)
    }

    /// Reads the relationship at `index` if it is still unread (a relationship fault), so that
    /// a store's failure to read it is thrown here rather than read as no objects, as the typed
    /// accessors must (their failure is only logged). Reads nothing more once it is read.
    func checkReadable(relationshipAt index: Int) throws {
        willAccessValues()
        if case .unread(let fault) = storage.relationships[index] { _ = try fault.checkedTargets() }
    }

    func relatedObjects(at index: Int) -> [ManagedObject] {
        willAccessValues()
        guard let graph else { return detachedTargets[index] ?? [] }
        return graph.relatedObjects(of: self, at: index)
    }

    /// Sets a relationship's objects. Objects of one context relate; so do objects of no
    /// context (Core Data's too): the object then holds them until it is inserted, and their
    /// inverse relationships follow when it is (``ObjectGraph/insert(_:)``).
    func setRelatedObjects(_ objects: [ManagedObject], at index: Int) throws {
        let relationship = layout.relationships[index]
        let destination = graph?.model.layout(for: relationship.destinationEntityName)
            ?? entity.modelLink.link?.layout(named: relationship.destinationEntityName)
        for object in objects {
            guard object.graph === graph else {
                throw ValidationError(
                    .wrongContext, entity: entity.name, key: relationship.name, objectID: objectID,
                    graph == nil
                        ? "the object \(object.objectID) belongs to a context and this one to none: insert this one first"
                        : "the object \(object.objectID) belongs to \(object.graph == nil ? "no context: insert it first" : "another context")")
            }
            guard destination?.hierarchyNames.contains(object.entity.name) == true else {
                throw ValidationError(
                    .wrongType, entity: entity.name, key: relationship.name, objectID: objectID,
                    "a \(object.entity.name) object cannot be a \(relationship.destinationEntityName)")
            }
        }
        guard let graph else {
            var unique: [ManagedObject] = []
            for object in objects where !unique.contains(where: { $0 === object }) { unique.append(object) }
            detachedTargets[index] = unique.isEmpty ? nil : Array(unique.prefix(relationship.isToMany ? unique.count : 1))
            return
        }
        graph.setTargets(OrderedSet(objects.map(\.objectID)), of: self, at: index)
    }

    /// The names of the properties whose values differ between `snapshot` and the current ones.
    func changedKeys(from snapshot: Row) -> [String] {
        var keys: [String] = []
        for (index, attribute) in layout.attributes.enumerated()
        where storage.attributes[index] != snapshot.attributes[index] {
            keys.append(attribute.name)
        }
        for (index, relationship) in layout.relationships.enumerated()
        where storage.relationships[index] != snapshot.relationships[index] {
            keys.append(relationship.name)
        }
        return keys
    }

    /// The keys of ``changedKeys(from:)`` that are stored, not transient.
    func persistentChangedKeys(from snapshot: Row) -> [String] {
        let changed = changedKeys(from: snapshot)
        guard !changed.isEmpty else { return [] }
        let transient = Set(layout.attributes.filter(\.isTransient).map(\.name) + layout.relationships.filter(\.isTransient).map(\.name))
        return changed.filter { !transient.contains($0) }
    }

    private func values(of row: Row, keys: [String]?) -> [String: (any Sendable)?] {
        var values: [String: (any Sendable)?] = [:]
        for (index, attribute) in layout.attributes.enumerated() where keys?.contains(attribute.name) ?? true {
            values[attribute.name] = .some(row.attributes[index]?.keyValue)
        }
        for (index, relationship) in layout.relationships.enumerated() where keys?.contains(relationship.name) ?? true {
            switch row.relationships[index].read {
            case .one(let id): values[relationship.name] = .some(id)
            case .many(let ids): values[relationship.name] = .some(Array(ids))
            }
        }
        return values
    }
}
