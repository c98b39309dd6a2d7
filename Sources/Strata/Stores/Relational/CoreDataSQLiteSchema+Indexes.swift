extension CoreDataSQLiteSchema {
    /// §6: the structural indexes (every to-one's key, `Z_ENT` of a hierarchy, each join table's
    /// second column), then the modelled ones, named `Z_<Entity>_<name>` after the entity that
    /// declares them: `indexed` properties, fetch indexes (a single-element one also under its
    /// property's name), uniqueness constraints.
    ///
    /// Index names are one namespace in SQLite (ASCII case ignored), and a model may give one name
    /// twice: an `indexed` property and a single-element fetch index on it, two single-element
    /// fetch indexes on one property, a fetch index named after a property. Core Data creates such
    /// a model's store with one index of that name; so does Strata, keeping the first definition
    /// in the order above. An element that names no column (a to-many, an expression) is left
    /// out of its index; an index left with none is not made.
    ///
    /// With `legacyNames` (Core Data before framework 800, §6), an `indexed` property's index is
    /// `Z<T>_Z<COL>_INDEX` and a compound index `Z<T>_Z<A>_Z<B>`, without collations; fetch
    /// indexes and uniqueness constraints keep the current names (those versions' are unchecked).
    mutating func makeIndexes(_ model: ManagedObjectModel, _ byName: [String: EntityDescription], legacyNames: Bool = false) {
        var names = Names()
        func add(_ index: Index) {
            let before = names
            guard names.take(index.name) == index.name else {
                names = before
                return
            }
            indexes.append(index)
        }
        for table in tables {
            for column in table.columns {
                guard case .foreignKey = column.role else { continue }
                add(Index(name: "\(table.name)_\(column.name)_INDEX", table: table.name, isUnique: false, columns: [(column.name, "")]))
            }
            let rootName = entities.first { $0.table == table.name && $0.superNumber == 0 }?.name ?? ""
            if let root = byName[rootName], !root.subentityNames.isEmpty {
                add(Index(name: "\(table.name)_Z_ENT_INDEX", table: table.name, isUnique: false, columns: [("Z_ENT", "")]))
            }
        }
        for join in joinTables {
            add(Index(name: "\(join.name)_\(join.primaryKey[1])_INDEX", table: join.name, isUnique: false,
                      columns: [(join.primaryKey[1], ""), (join.primaryKey[0], "")]))
        }
        for entity in model.entities {
            guard let table = entities.first(where: { $0.name == entity.name })?.table,
                let columns = tables.first(where: { $0.name == table })?.columns
            else { continue }
            func column(_ property: String) -> String? {
                columns.first { column in
                    switch column.role {
                    case .attribute(let owner, let name), .foreignKey(let owner, let name): name == property && owner == declaring(property)
                    default: false
                    }
                }?.name
            }
            /// The entity of `entity`'s lineage that declares `property` (siblings' columns of one
            /// name are other properties).
            func declaring(_ property: String) -> String {
                var current: String? = entity.name
                while let name = current, let description = byName[name] {
                    if description.attributes.contains(where: { $0.name == property })
                        || description.relationships.contains(where: { $0.name == property })
                    {
                        return name
                    }
                    current = description.superentityName
                }
                return entity.name
            }
            func modelled(_ name: String, _ elements: [(String, Bool)], unique: Bool) {
                let resolved = elements.compactMap { element in column(element.0).map { ($0, "COLLATE BINARY " + (element.1 ? "ASC" : "DESC")) } }
                guard !resolved.isEmpty else { return }
                add(Index(name: "Z_\(entity.name)_\(name)", table: table, isUnique: unique, columns: resolved.map { (name: $0.0, clause: $0.1) }))
            }
            func legacy(_ properties: [String], suffix: String) {
                let resolved = properties.compactMap(column)
                guard !resolved.isEmpty else { return }
                add(Index(name: ([table] + resolved).joined(separator: "_") + suffix, table: table, isUnique: false,
                          columns: resolved.map { (name: $0, clause: "") }))
            }
            let toOnes = Set(entity.relationships.filter { !$0.isToMany }.map(\.name))
            for attribute in entity.attributes where attribute.isIndexed && !attribute.isTransient {
                if legacyNames { legacy([attribute.name], suffix: "_INDEX") } else { modelled(attribute.name, [(attribute.name, true)], unique: false) }
            }
            for index in entity.indexes {
                if legacyNames, index.isCompoundIndex {
                    legacy(index.elements.filter { $0.expression == nil }.map(\.propertyName), suffix: "")
                    continue
                }
                let elements = index.elements.filter { $0.expression == nil }.map { ($0.propertyName, $0.isAscending) }
                // A legacy compound index is named by its properties.
                modelled(index.isCompoundIndex ? elements.map(\.0).joined(separator: "_") : index.name, elements, unique: false)
                if elements.count == 1, !toOnes.contains(elements[0].0) { modelled(elements[0].0, elements, unique: false) }
            }
            for constraint in entity.uniquenessConstraints {
                modelled("UNIQUE_" + constraint.joined(separator: "_"), constraint.map { ($0, true) }, unique: true)
            }
        }
    }
}
