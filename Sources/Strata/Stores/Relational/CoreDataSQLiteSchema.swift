import Foundation

/// The tables, columns, indexes and `Z_PRIMARYKEY` rows Core Data's SQLite store creates for a
/// model, by the rules of `formats/coredata-sqlite-schema.md` (its sections are cited below),
/// for framework versions from about 800 on (and, asked for, the index names of older ones).
///
/// A pure function of the model: the SQLite store creates its file from it and reads real files
/// by it, and the tests hold it to the schemas of stores Core Data wrote. Left out for now, each
/// marked "unchecked" on that page: composite attributes' flattened columns, the hidden column of
/// a to-many without an inverse, R-tree indexes, derived attributes' triggers other than a count's (§7).
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
    package internal(set) var joinTables: [JoinTable] = []
    package internal(set) var indexes: [Index] = []
    /// The triggers that keep derived attributes (§7).
    package internal(set) var triggers: [Trigger] = []

    /// The first Core Data framework version whose modelled indexes are named
    /// `Z_<Entity>_<name>` with a collation per column (§6); before it, `Z<T>_Z<COL>_INDEX`.
    package static let modernIndexNamesFramework = 800

    /// - Parameter frameworkVersion: The Core Data framework version whose index names to give
    ///   (`NSPersistenceFrameworkVersion` of a store it wrote); `nil` for current Core Data's.
    package init(model: ManagedObjectModel, frameworkVersion: Int? = nil) {
        let byName = Dictionary(model.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var tableNames = Names()
        numberEntities(model, byName, &tableNames)
        let numbers = Dictionary(entities.map { ($0.name, $0.number) }, uniquingKeysWith: { a, _ in a })
        var builders: [String: TableBuilder] = [:]
        for root in entities where root.superNumber == 0 {
            builders[root.table] = TableBuilder(root: root.name, table: root.table, byName: byName, numbers: numbers)
        }
        let tableOf = Dictionary(entities.map { ($0.name, $0.table) }, uniquingKeysWith: { a, _ in a })
        var wiring = Wiring(byName: byName, numbers: numbers, tableOf: tableOf, builders: builders, tableNames: tableNames)
        for name in Self.sortedNames(model.entities.map(\.name)) { wiring.wire(name) }
        joinTables = wiring.joinTables
        tables = entities.filter { $0.superNumber == 0 }.compactMap { wiring.builders[$0.table]?.table(byName: byName) }
        triggers = derivedTriggers(model, byName)
        makeIndexes(model, byName, legacyNames: (frameworkVersion ?? Self.modernIndexNamesFramework) < Self.modernIndexNamesFramework)
    }

    // MARK: §1 Entity numbers

    private mutating func numberEntities(_ model: ManagedObjectModel, _ byName: [String: EntityDescription], _ tableNames: inout Names) {
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
            // Two roots whose names differ only in case would share a table (SQLite's names
            // ignore ASCII case): the second gets a suffix, as a clashing column does.
            if let entity = byName[root] { visit(entity, superNumber: 0, table: tableNames.take(Self.tableName(root: root))) }
        }
    }

    /// Names handed out once each in one namespace (a table's columns, or the database's
    /// tables): a name already taken gets `1`, then `2`, … (§3). SQLite compares names without
    /// ASCII case, and so does this.
    struct Names {
        private var taken: Set<String>

        init(taken: Set<String> = []) {
            self.taken = Set(taken.map { $0.uppercased() })
        }

        mutating func take(_ base: String) -> String {
            var name = base
            var suffix = 1
            while taken.contains(Self.key(name)) {
                name = base + String(suffix)
                suffix += 1
            }
            taken.insert(Self.key(name))
            return name
        }

        private static func key(_ name: String) -> String {
            String(String.UnicodeScalarView(name.unicodeScalars.map { ("a"..."z").contains($0) ? Unicode.Scalar($0.value - 32)! : $0 }))
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

    // MARK: DDL

    /// The metadata key Core Data records the store's `PRAGMA auto_vacuum` under ("2": incremental).
    static let autoVacuumKey = "_NSAutoVacuumLevel"

    /// The `CREATE` statements, as Core Data writes them.
    package var createStatements: [String] {
        var statements = tables.map { $0.createStatement(named: $0.name) } + joinTables.map { $0.createStatement(named: $0.name) }
        for index in indexes {
            statements.append(index.createStatement)
        }
        statements += triggers.map(\.sql)
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

    /// The entity that declares a relationship `name` seen on `entity` (itself or an ancestor).
    static func declaringEntity(of name: String, from entity: String, _ byName: [String: EntityDescription]) -> String {
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
