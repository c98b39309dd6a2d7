extension CoreDataSQLiteSchema {
    /// The schema as a store that already exists has it, for reading and writing that store.
    ///
    /// The rules decide which side of a many-to-many pair owns its join table from the order
    /// Core Data wires relationships (§5), which is certain for the stores checked but not for
    /// every hash-table size, and the join columns' suffixes from the order names were handed
    /// out. A store Core Data wrote is right by definition: each join table the file does not
    /// hold as derived is looked for under both sides' names (`Z_<e><R>`, `Z_<f><I>`, with or
    /// without a suffix) with columns of the rules' shape, and used where it is. Entity tables
    /// and their columns are taken as derived (their suffixes cannot be told apart by name).
    ///
    /// - Parameter existingTables: The file's tables, each with its column names.
    package func adopting(existingTables: [String: [String]]) -> CoreDataSQLiteSchema {
        guard !existingTables.isEmpty else { return self }
        var adopted = self
        let byFoldedName = Dictionary(existingTables.map { ($0.key.uppercased(), Set($0.value)) }, uniquingKeysWith: { a, _ in a })
        adopted.joinTables = joinTables.map { join in
            if let columns = byFoldedName[join.name.uppercased()], Set(join.columns).isSubset(of: columns) { return join }
            return existing(join, in: existingTables) ?? join
        }
        return adopted
    }

    /// The file's table for `join`'s pair, owned by either side.
    private func existing(_ join: JoinTable, in tables: [String: [String]]) -> JoinTable? {
        let numbers = Dictionary(entities.map { ($0.name, $0.number) }, uniquingKeysWith: { a, _ in a })
        func side(_ text: String) -> (entity: String, relationship: String)? {
            let parts = text.split(separator: ".", maxSplits: 1).map(String.init)
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
        guard let first = side(join.owner), let second = side(join.inverse) else { return nil }
        let isReflexive = join.owner == join.inverse
        func matches(_ name: String, _ base: String) -> Bool {
            name.uppercased().hasPrefix(base) && name.dropFirst(base.count).allSatisfy(\.isNumber)
        }
        for (owner, inverse) in [(first, second), (second, first)] {
            guard let e = numbers[owner.entity], let f = numbers[inverse.entity] else { continue }
            let r = Self.upper(owner.relationship), i = Self.upper(inverse.relationship)
            for (name, columns) in tables.sorted(by: { $0.key < $1.key }) where matches(name, "Z_\(e)\(r)") {
                guard let ownColumn = columns.first(where: { matches($0, "Z_\(e)\(i)") }),
                    let otherColumn = isReflexive
                        ? columns.first(where: { $0.uppercased() == "REFLEXIVE" })
                        : columns.first(where: { $0 != ownColumn && matches($0, "Z_\(f)\(r)") })
                else { continue }
                // Position columns are named after the column whose object they place.
                let orders = ["Z_FOK_" + ownColumn.dropFirst(2), isReflexive ? "FOK_REFLEXIVE" : "Z_FOK_" + otherColumn.dropFirst(2)]
                return JoinTable(
                    name: name, owner: "\(owner.entity).\(owner.relationship)", inverse: "\(inverse.entity).\(inverse.relationship)",
                    columns: [ownColumn, otherColumn] + orders.filter(columns.contains), primaryKey: [ownColumn, otherColumn])
            }
        }
        return nil
    }
}

extension SQLiteConnection {
    /// Every table of the database with its columns' names, in their order.
    package func tableColumns() throws -> [String: [String]] {
        var tables: [String: [String]] = [:]
        try statement(
            "SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p WHERE m.type = 'table' ORDER BY m.name, p.cid"
        ).forEachRow { row in
            if case .text(let table) = row.value(0), case .text(let column) = row.value(1) { tables[table, default: []].append(column) }
        }
        return tables
    }
}
