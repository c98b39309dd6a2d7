import Foundation

/// The tables, columns, indexes and `Z_PRIMARYKEY` rows Core Data's SQLite store creates for a
/// model, by the rules of `formats/coredata-sqlite-schema.md` (its sections are cited below),
/// for framework versions from about 800 on (index names changed before that).
///
/// A pure function of the model: the SQLite store creates its file from it and reads real files
/// by it, and the tests hold it to the schemas of stores Core Data wrote. Left out for now, each
/// marked "unchecked" on that page: composite attributes' flattened columns, the hidden column of
/// a to-many without an inverse, R-tree indexes, derived attributes' triggers (§7).
package struct CoreDataSQLiteSchema: Sendable {
    /// An entity's row in `Z_PRIMARYKEY`.
    package struct Entity: Sendable, Hashable {
        package let name: String
        package let number: Int
        /// The direct superentity's number, 0 for a root.
        package let superNumber: Int
        /// The table of its hierarchy (`Z` + the root's name upper-cased).
        package let table: String
    }

    package struct Column: Sendable, Hashable {
        package enum Role: Sendable, Hashable {
            case attribute(entity: String, name: String)
            /// A to-one's foreign key (the target's `Z_PK`).
            case foreignKey(entity: String, relationship: String)
            /// A to-one's target entity number, when the destination has subentities.
            case foreignEntity(entity: String, relationship: String)
            /// A to-one's position in its inverse ordered to-many.
            case foreignOrder(entity: String, relationship: String)
        }
        package let name: String
        package let type: String
        package let role: Role
    }

    package struct Table: Sendable, Hashable {
        package let name: String
        /// After `Z_PK`, `Z_ENT`, `Z_OPT`, in Core Data's order.
        package let columns: [Column]
    }

    /// A many-to-many relationship's table, owned by one side (§4).
    package struct JoinTable: Sendable, Hashable {
        package let name: String
        /// The owning relationship, as "Entity.relationship", and its inverse.
        package let owner: String
        package let inverse: String
        package let columns: [String]
        package let primaryKey: [String]
    }

    package struct Index: Sendable, Hashable {
        package let name: String
        package let table: String
        package let isUnique: Bool
        /// Each column with the clause after it (`COLLATE BINARY ASC`), empty for structural indexes.
        package let columns: [(name: String, clause: String)]

        package static func == (lhs: Index, rhs: Index) -> Bool {
            lhs.name == rhs.name && lhs.table == rhs.table && lhs.isUnique == rhs.isUnique
                && lhs.columns.map(\.name) == rhs.columns.map(\.name) && lhs.columns.map(\.clause) == rhs.columns.map(\.clause)
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(name)
        }
    }

    package private(set) var entities: [Entity] = []
    package private(set) var tables: [Table] = []
    package private(set) var joinTables: [JoinTable] = []
    package private(set) var indexes: [Index] = []

    package init(model: ManagedObjectModel) {
        let byName = Dictionary(model.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        numberEntities(model, byName)
        let numbers = Dictionary(entities.map { ($0.name, $0.number) }, uniquingKeysWith: { a, _ in a })
        let wiring = Self.wiringOrder(model, byName, numbers: numbers)
        var orderedForeignKeys: [String: [Column]] = [:]  // table → its Z_FOK_ columns, in wiring order
        var owners: Set<String> = []
        for (entity, relationship) in wiring {
            guard let description = byName[entity]?.relationshipsByName[relationship], let inverseName = description.inverseName,
                let inverse = byName[description.destinationEntityName]?.relationshipsByName[inverseName]
            else { continue }
            let declaring = Self.declaringEntity(of: relationship, from: entity, byName)
            let inverseDeclaring = Self.declaringEntity(of: inverseName, from: description.destinationEntityName, byName)
            if description.isToMany && inverse.isToMany {
                let pair = [declaring + "." + relationship, inverseDeclaring + "." + inverseName].sorted().joined(separator: "|")
                guard owners.insert(pair).inserted else { continue }
                joinTables.append(
                    Self.joinTable(owner: (declaring, description), inverse: (inverseDeclaring, inverse), numbers: numbers))
            } else if !description.isToMany, inverse.isToMany, inverse.isOrdered {
                let table = Self.tableName(root: Self.root(of: declaring, byName))
                let column = Column(
                    name: "Z_FOK_" + Self.upper(relationship), type: "INTEGER",
                    role: .foreignOrder(entity: declaring, relationship: relationship))
                if !(orderedForeignKeys[table] ?? []).contains(column) { orderedForeignKeys[table, default: []].append(column) }
            }
        }
        for root in entities.filter({ $0.superNumber == 0 }) {
            tables.append(makeTable(root: root.name, byName: byName, numbers: numbers, ordered: orderedForeignKeys[root.table] ?? []))
        }
        makeIndexes(model, byName)
    }

    // MARK: §1 Entity numbers

    private mutating func numberEntities(_ model: ManagedObjectModel, _ byName: [String: EntityDescription]) {
        var next = 1
        func visit(_ entity: EntityDescription, superNumber: Int, table: String) {
            let number = next
            next += 1
            entities.append(Entity(name: entity.name, number: number, superNumber: superNumber, table: table))
            for child in Self.sortedNames(entity.subentityNames) {
                if let child = byName[child] { visit(child, superNumber: number, table: table) }
            }
        }
        for root in Self.sortedNames(model.entities.filter { $0.superentityName == nil }.map(\.name)) {
            if let entity = byName[root] { visit(entity, superNumber: 0, table: Self.tableName(root: root)) }
        }
    }

    // MARK: §3 Entity tables

    private func makeTable(
        root: String, byName: [String: EntityDescription], numbers: [String: Int], ordered: [Column]
    ) -> Table {
        var generator = ColumnNames()
        var handedOut: [Column] = []
        func visit(_ name: String) {
            guard let entity = byName[name] else { return }
            for attribute in entity.attributes.sorted(by: { Self.nameOrder($0.name, $1.name) }) where !attribute.isTransient {
                guard attribute.type != .composite else { continue }  // flattened columns: unchecked, left out
                handedOut.append(
                    Column(name: generator.take(attribute.name), type: Self.columnType(attribute.type),
                           role: .attribute(entity: name, name: attribute.name)))
            }
            for relationship in entity.relationships.sorted(by: { Self.nameOrder($0.name, $1.name) })
            where !relationship.isToMany && !relationship.isTransient {
                handedOut.append(
                    Column(name: generator.take(relationship.name), type: "INTEGER",
                           role: .foreignKey(entity: name, relationship: relationship.name)))
                if let destination = byName[relationship.destinationEntityName], !destination.subentityNames.isEmpty,
                    let number = numbers[destination.name]
                {
                    handedOut.append(
                        Column(name: "Z\(number)_" + Self.upper(relationship.name), type: "INTEGER",
                               role: .foreignEntity(entity: name, relationship: relationship.name)))
                }
            }
            for child in Self.sortedNames(entity.subentityNames) { visit(child) }
        }
        visit(root)
        // A stable sort by class: integers (then every Z_FOK_ column), reals and dates, decimals,
        // strings, UUIDs, transformables, binary data.
        func rank(_ column: Column) -> Int {
            guard case .attribute(let entity, let name) = column.role, let type = byName[entity]?.attributesByName[name]?.type else {
                return 0
            }
            return switch type {
            case .integer16, .integer32, .integer64, .boolean: 0
            case .double, .float, .date: 2
            case .decimal: 3
            case .string, .uri, .objectID: 4
            case .uuid: 5
            case .transformable: 6
            case .binaryData: 7
            case .undefined, .composite: 8
            }
        }
        let integers = handedOut.filter { rank($0) == 0 } + ordered
        let rest = handedOut.filter { rank($0) > 0 }.enumerated().sorted { a, b in
            rank(a.element) != rank(b.element) ? rank(a.element) < rank(b.element) : a.offset < b.offset
        }.map(\.element)
        return Table(name: Self.tableName(root: root), columns: integers + rest)
    }

    /// Column names, handed out once per table: a name already taken gets `1`, then `2`, … (§3).
    private struct ColumnNames {
        private var taken: Set<String> = ["Z_PK", "Z_ENT", "Z_OPT"]

        mutating func take(_ property: String) -> String {
            let base = "Z" + CoreDataSQLiteSchema.upper(property)
            var name = base
            var suffix = 1
            while taken.contains(name) {
                name = base + String(suffix)
                suffix += 1
            }
            taken.insert(name)
            return name
        }
    }

    static func columnType(_ type: AttributeType) -> String {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: "INTEGER"
        case .double, .float: "FLOAT"
        case .date: "TIMESTAMP"
        case .decimal: "DECIMAL"
        case .string, .uri, .objectID: "VARCHAR"
        case .binaryData, .transformable, .uuid, .composite, .undefined: "BLOB"
        }
    }

    // MARK: §4 Join tables

    private static func joinTable(
        owner: (entity: String, relationship: RelationshipDescription), inverse: (entity: String, relationship: RelationshipDescription),
        numbers: [String: Int]
    ) -> JoinTable {
        let e = numbers[owner.entity] ?? 0, f = numbers[inverse.entity] ?? 0
        let r = upper(owner.relationship.name), i = upper(inverse.relationship.name)
        let isReflexive = owner.entity == inverse.entity && owner.relationship.name == inverse.relationship.name
        let ownerColumn = "Z_\(e)\(i)"
        let otherColumn = isReflexive ? "REFLEXIVE" : "Z_\(f)\(r)"
        var columns = [ownerColumn, otherColumn]
        if inverse.relationship.isOrdered { columns.append("Z_FOK_\(e)\(i)") }
        if owner.relationship.isOrdered { columns.append(isReflexive ? "FOK_REFLEXIVE" : "Z_FOK_\(f)\(r)") }
        return JoinTable(
            name: "Z_\(e)\(r)", owner: "\(owner.entity).\(owner.relationship.name)",
            inverse: "\(inverse.entity).\(inverse.relationship.name)", columns: columns, primaryKey: [ownerColumn, otherColumn])
    }

    // MARK: §5 Wiring order

    /// Every (entity, relationship) pair in the order Core Data wires relationships: entities in
    /// case-insensitive name order; within one, its SQL properties in the bucket order of a
    /// Foundation 10.4-style hash table of their keys.
    static func wiringOrder(
        _ model: ManagedObjectModel, _ byName: [String: EntityDescription], numbers: [String: Int]
    ) -> [(String, String)] {
        var order: [(String, String)] = []
        for name in sortedNames(model.entities.map(\.name)) {
            guard let entity = byName[name] else { continue }
            let relationships = entity.relationshipsByName.filter { !$0.value.isTransient }
            var keys = ["_ent", "_pk", "_opt"] + entity.attributesByName.values.filter { !$0.isTransient }.map(\.name)
                + relationships.keys
            for (relationshipName, relationship) in relationships where !relationship.isToMany {
                keys.append("_" + "Z" + upper(relationshipName))
                if let destination = byName[relationship.destinationEntityName], !destination.subentityNames.isEmpty,
                    let number = numbers[destination.name]
                {
                    keys.append("_" + "Z\(number)_" + upper(relationshipName))
                }
            }
            for key in bucketOrder(keys.sorted()) where relationships[key] != nil {
                order.append((name, key))
            }
        }
        return order
    }

    /// Keys in the order a 10.4-style `NSDictionary` holds them: inserted in the order given into
    /// the smallest table that fits them, by Foundation's string hash, with linear probing.
    static func bucketOrder(_ keys: [String]) -> [String] {
        let capacities = [4, 8, 17, 29, 47, 76, 123, 199, 322, 521, 843, 1364, 2207, 3571]
        let bucketCounts = [5, 11, 23, 41, 67, 113, 199, 317, 521, 839, 1361, 2207, 3571, 5779]
        let level = capacities.firstIndex { $0 >= keys.count } ?? (capacities.count - 1)
        let buckets = max(bucketCounts[level], keys.count)
        var slots = [String?](repeating: nil, count: buckets)
        for key in keys {
            var slot = Int(foundationHash(key) % UInt32(buckets))
            while slots[slot] != nil { slot = (slot + 1) % buckets }
            slots[slot] = key
        }
        return slots.compactMap { $0 }
    }

    /// Foundation's (10.4-era) string hash, 32 bits: four UTF-16 units at a time, then one at a
    /// time; of a string longer than 23 units only the first 8 and the last 16 count.
    static func foundationHash(_ string: String) -> UInt32 {
        let all = Array(string.utf16)
        let units = all.count > 23 ? Array(all.prefix(8) + all.suffix(16)) : all
        var h = UInt32(truncatingIfNeeded: all.count)
        var index = 0
        while index + 4 <= units.count {
            h = h &* 67_503_105 &+ UInt32(units[index]) &* 16_974_593 &+ UInt32(units[index + 1]) &* 66_049
                &+ UInt32(units[index + 2]) &* 257 &+ UInt32(units[index + 3])
            index += 4
        }
        while index < units.count {
            h = h &* 257 &+ UInt32(units[index])
            index += 1
        }
        return h &+ (h << UInt32(all.count & 31))
    }

    // MARK: §6 Indexes

    private mutating func makeIndexes(_ model: ManagedObjectModel, _ byName: [String: EntityDescription]) {
        for table in tables {
            for column in table.columns {
                guard case .foreignKey = column.role else { continue }
                indexes.append(Index(name: "\(table.name)_\(column.name)_INDEX", table: table.name, isUnique: false, columns: [(column.name, "")]))
            }
            let rootName = entities.first { $0.table == table.name && $0.superNumber == 0 }?.name ?? ""
            if let root = byName[rootName], !root.subentityNames.isEmpty {
                indexes.append(Index(name: "\(table.name)_Z_ENT_INDEX", table: table.name, isUnique: false, columns: [("Z_ENT", "")]))
            }
        }
        for join in joinTables {
            indexes.append(
                Index(name: "\(join.name)_\(join.primaryKey[1])_INDEX", table: join.name, isUnique: false,
                      columns: [(join.primaryKey[1], ""), (join.primaryKey[0], "")]))
        }
        for entity in model.entities {
            guard let table = entities.first(where: { $0.name == entity.name })?.table,
                let columns = tables.first(where: { $0.name == table })?.columns
            else { continue }
            func column(_ property: String) -> String? {
                columns.first { column in
                    switch column.role {
                    case .attribute(_, let name), .foreignKey(_, let name): name == property
                    default: false
                    }
                }?.name
            }
            func modelled(_ name: String, _ elements: [(String, Bool)], unique: Bool) {
                let resolved = elements.compactMap { element in column(element.0).map { ($0, "COLLATE BINARY " + (element.1 ? "ASC" : "DESC")) } }
                guard resolved.count == elements.count, !resolved.isEmpty else { return }
                let index = Index(name: "Z_\(entity.name)_\(name)", table: table, isUnique: unique, columns: resolved.map { (name: $0.0, clause: $0.1) })
                if !indexes.contains(index) { indexes.append(index) }
            }
            let toOnes = Set(entity.relationships.filter { !$0.isToMany }.map(\.name))
            for attribute in entity.attributes where attribute.isIndexed && !attribute.isTransient {
                modelled(attribute.name, [(attribute.name, true)], unique: false)
            }
            for index in entity.indexes {
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

    // MARK: DDL

    /// The metadata key Core Data records the store's `PRAGMA auto_vacuum` under ("2": incremental).
    static let autoVacuumKey = "_NSAutoVacuumLevel"

    /// The `CREATE` statements, as Core Data writes them.
    package var createStatements: [String] {
        var statements = tables.map { $0.createStatement(named: $0.name) } + joinTables.map { $0.createStatement(named: $0.name) }
        for index in indexes {
            statements.append(index.createStatement)
        }
        statements.append("CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER)")
        statements.append("CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB)")
        statements.append("CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)")
        return statements
    }

    // MARK: Names

    static func tableName(root: String) -> String { "Z" + upper(root) }

    /// Upper-cased as Core Data does it: ASCII a–z only; a first character that is not a letter
    /// becomes one (§3, unchecked).
    static func upper(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            scalars.append(("a"..."z").contains(scalar) ? Unicode.Scalar(scalar.value - 32)! : scalar)  // a–z map to A–Z
        }
        if let first = scalars.first, !(("A"..."Z").contains(first)), ("0"..."9").contains(first) {
            let replaced = Unicode.Scalar((first.value - 48) % 26 + 65)!  // a letter A–Z
            scalars.replaceSubrange(scalars.startIndex...scalars.startIndex, with: [replaced])
        }
        return String(scalars)
    }

    /// Case-insensitive name order, code units breaking ties (§1).
    static func nameOrder(_ a: String, _ b: String) -> Bool {
        let (la, lb) = (a.lowercased(), b.lowercased())
        return la != lb ? la.utf16.lexicographicallyPrecedes(lb.utf16) : a.utf16.lexicographicallyPrecedes(b.utf16)
    }

    static func sortedNames(_ names: [String]) -> [String] { names.sorted(by: nameOrder) }

    private static func root(of name: String, _ byName: [String: EntityDescription]) -> String {
        var current = name
        var seen: Set<String> = []
        while let parent = byName[current]?.superentityName, seen.insert(parent).inserted { current = parent }
        return current
    }

    /// The entity that declares a relationship `name` seen on `entity` (itself or an ancestor).
    private static func declaringEntity(of name: String, from entity: String, _ byName: [String: EntityDescription]) -> String {
        var current: String? = entity
        while let candidate = current, let description = byName[candidate] {
            if description.relationships.contains(where: { $0.name == name }) { return candidate }
            current = description.superentityName
        }
        return entity
    }
}

extension CoreDataSQLiteSchema.Table {
    /// `CREATE TABLE`, as Core Data writes it, under `name` (a migration builds a table under
    /// another name first).
    package func createStatement(named name: String) -> String {
        let columns = ["Z_PK INTEGER PRIMARY KEY", "Z_ENT INTEGER", "Z_OPT INTEGER"] + self.columns.map { "\($0.name) \($0.type)" }
        return "CREATE TABLE \(name) ( \(columns.joined(separator: ", ")) )"
    }
}

extension CoreDataSQLiteSchema.JoinTable {
    package func createStatement(named name: String) -> String {
        let columns = columns.map { "\($0) INTEGER" } + ["PRIMARY KEY (\(primaryKey.joined(separator: ", ")))"]
        return "CREATE TABLE \(name) ( \(columns.joined(separator: ", ")) )"
    }
}

extension CoreDataSQLiteSchema.Index {
    /// `CREATE [UNIQUE] INDEX name ON table (columns)`, as Core Data writes it.
    package var createStatement: String {
        let list = columns.map { $0.clause.isEmpty ? $0.name : "\($0.name) \($0.clause)" }.joined(separator: ", ")
        return "CREATE \(isUnique ? "UNIQUE " : "")INDEX \(name) ON \(table) (\(list))"
    }
}
