extension CoreDataSQLiteSchema {
    /// Core Data's wiring of relationships (§5), and what it adds (§4): entities are visited in
    /// case-insensitive name order; within one, its SQL properties in the bucket order of a
    /// Foundation 10.4-style hash table of their keys. The first side of a many-to-many pair
    /// visited makes the join table; the first side of an ordered one-to-many pair visited adds
    /// the to-one's `Z_FOK_` column. Join and order columns are named by the generator of the
    /// table whose keys they hold, in the order wiring reaches them.
    struct Wiring {
        let byName: [String: EntityDescription]
        let numbers: [String: Int]
        let tableOf: [String: String]
        var builders: [String: TableBuilder]
        var tableNames: Names
        private(set) var joinTables: [JoinTable] = []
        /// The many-to-many pairs with a table, and the to-ones with an order column.
        private var wired: Set<String> = []

        init(
            byName: [String: EntityDescription], numbers: [String: Int], tableOf: [String: String], builders: [String: TableBuilder],
            tableNames: Names
        ) {
            self.byName = byName
            self.numbers = numbers
            self.tableOf = tableOf
            self.builders = builders
            // Join tables share the database's namespace with the entities' tables.
            self.tableNames = tableNames
        }

        mutating func wire(_ entityName: String) {
            guard let entity = byName[entityName] else { return }
            for key in bucketOrder(keys(of: entity).sorted()) {
                guard let relationship = entity.relationshipsByName[key], !relationship.isTransient, let inverseName = relationship.inverseName,
                    let inverse = byName[relationship.destinationEntityName]?.relationshipsByName[inverseName], !inverse.isTransient
                else { continue }
                let mine = (entity: declaringEntity(of: key, from: entityName, byName), relationship: relationship)
                let theirs = (entity: declaringEntity(of: inverseName, from: relationship.destinationEntityName, byName), relationship: inverse)
                if relationship.isToMany && inverse.isToMany {
                    let pair = ["\(mine.entity).\(key)", "\(theirs.entity).\(inverseName)"].sorted().joined(separator: "|")
                    if wired.insert(pair).inserted { makeJoinTable(owner: mine, inverse: theirs) }
                } else if !relationship.isToMany, inverse.isToMany, inverse.isOrdered {
                    addOrderColumn(toOne: mine.entity, key)
                } else if relationship.isToMany, relationship.isOrdered, !inverse.isToMany {
                    addOrderColumn(toOne: theirs.entity, inverseName)
                }
            }
        }

        /// `_ent`, `_pk`, `_opt`, every attribute and relationship name (inherited ones too), and
        /// for each to-one `_` + its foreign-key column, its `Z<n>_` column and the `Z_FOK_`
        /// column wiring has added so far.
        private func keys(of entity: EntityDescription) -> [String] {
            let relationships = entity.relationshipsByName.filter { !$0.value.isTransient }
            var keys = ["_ent", "_pk", "_opt"] + entity.attributesByName.values.filter { !$0.isTransient }.map(\.name) + relationships.keys
            guard let builder = tableOf[entity.name].flatMap({ builders[$0] }) else { return keys }
            for (name, relationship) in relationships where !relationship.isToMany {
                let declaring = declaringEntity(of: name, from: entity.name, byName)
                let roles: [Column.Role] = [
                    .foreignKey(entity: declaring, relationship: name), .foreignEntity(entity: declaring, relationship: name),
                    .foreignOrder(entity: declaring, relationship: name),
                ]
                keys += roles.compactMap { builder.column($0).map { "_" + $0 } }
            }
            return keys
        }

        private mutating func addOrderColumn(toOne entity: String, _ relationship: String) {
            guard let table = tableOf[entity], wired.insert("order:\(entity).\(relationship)").inserted else { return }
            builders[table]?.addOrderColumn(entity: entity, relationship: relationship)
        }

        /// The join table of a many-to-many pair (§4): `Z_<e><R>`, with E's keys in
        /// `Z_<e><I>` and F's in `Z_<f><R>`, then the ordered sides' position columns.
        private mutating func makeJoinTable(
            owner: (entity: String, relationship: RelationshipDescription), inverse: (entity: String, relationship: RelationshipDescription)
        ) {
            let e = numbers[owner.entity] ?? 0, f = numbers[inverse.entity] ?? 0
            let r = upper(owner.relationship.name), i = upper(inverse.relationship.name)
            let isReflexive = owner.entity == inverse.entity && owner.relationship.name == inverse.relationship.name
            func take(_ base: String, forKeysOf entity: String) -> String {
                guard let table = tableOf[entity] else { return base }
                return builders[table]?.takeJoinColumn(base) ?? base
            }
            let ownerColumn = take("Z_\(e)\(i)", forKeysOf: owner.entity)
            let otherColumn = isReflexive ? "REFLEXIVE" : take("Z_\(f)\(r)", forKeysOf: inverse.entity)
            var columns = [ownerColumn, otherColumn]
            // A position column is named after the column whose object it places.
            if inverse.relationship.isOrdered { columns.append("Z_FOK_" + ownerColumn.dropFirst(2)) }
            if owner.relationship.isOrdered { columns.append(isReflexive ? "FOK_REFLEXIVE" : "Z_FOK_" + otherColumn.dropFirst(2)) }
            joinTables.append(
                JoinTable(
                    name: tableNames.take("Z_\(e)\(r)"), owner: "\(owner.entity).\(owner.relationship.name)",
                    inverse: "\(inverse.entity).\(inverse.relationship.name)", columns: columns, primaryKey: [ownerColumn, otherColumn]))
        }
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
}
