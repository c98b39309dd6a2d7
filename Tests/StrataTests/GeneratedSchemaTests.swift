import Foundation
@testable import Strata
import StrataPostgres
import StrataTestSupport
import Testing

/// The schema rules (`formats/coredata-sqlite-schema.md` §3–§6) hold for the whole class of
/// models, not only the fixtures': for each of many generated models (``ModelGenerator``:
/// sibling subentities with properties of one name, clashing many-to-many join columns,
/// ordered sides, self-relationships, indexes giving one name twice), a SQLite store can be
/// created; its tables, columns and indexes are the derived ones, each name once; the
/// schema follows the rules; and generated objects saved into it read back exactly.
///
/// A failure names its seed: `STRATA_SCHEMA_SEED=<seed>` runs that model alone.
/// `STRATA_SCHEMA_CASES` sets how many models run (100 by default).
@Suite struct GeneratedSchemaTests {
    static let seeds = seeds(countFrom: "STRATA_SCHEMA_CASES", default: 100, seed: 0x5EED_5C4E_3A)

    /// The models' seeds: `STRATA_SCHEMA_SEED` alone when set, else as many as the variable
    /// `countFrom` says (`count` by default), drawn from `seed`.
    static func seeds(countFrom variable: String, default count: Int, seed: UInt64) -> [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let seed = environment["STRATA_SCHEMA_SEED"].flatMap(UInt64.init) { return [seed] }
        var random = SplitMix64(seed: seed)
        return (0..<(environment[variable].flatMap(Int.init) ?? count)).map { _ in random.next() }
    }

    @Test func everyGeneratedModelGetsAStoreByTheRulesThatKeepsWhatItSaves() async throws {
        var seen = Coverage()
        defer {
            print("generated schemas: \(Self.seeds.count) models; \(seen)")
            // The run reached the hard cases: a generator that stopped making them would pass
            // without testing anything.
            if Self.seeds.count >= 50 {
                #expect(seen.suffixedColumns > 0 && seen.suffixedJoinColumns > 0 && seen.suffixedOrderColumns > 0, "\(seen)")
                #expect(seen.joinTables > 0 && seen.orderedJoinSides > 0 && seen.reflexiveJoins > 0, "\(seen)")
                #expect(seen.indexNamesGivenTwice > 0, "\(seen)")
            }
        }
        for seed in Self.seeds {
            guard case (let model, var generator)? = ModelGenerator.modelOrRecordedRefusal(seed: seed) else { continue }
            let directory = try Fixtures.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let url = directory.appendingPathComponent("Generated.sqlite")
            let schema = CoreDataSQLiteSchema(model: model)
            Self.checkRules(schema, model, seed: seed)
            seen.count(schema, model)
            do {
                let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
                try await coordinator.addPersistentStore(type: .sqlite, at: url)
            } catch {
                Issue.record("seed \(seed): no store for the model: \(error)")
                continue
            }
            try Self.checkFile(at: url, against: schema, seed: seed)
            try await Self.checkRoundTrip(model, at: url, seed: seed, generator: &generator)
        }
    }

    /// How often the generated models met each hard case.
    struct Coverage: CustomStringConvertible {
        var suffixedColumns = 0, suffixedJoinColumns = 0, suffixedOrderColumns = 0
        var joinTables = 0, orderedJoinSides = 0, reflexiveJoins = 0, indexNamesGivenTwice = 0

        mutating func count(_ schema: CoreDataSQLiteSchema, _ model: ManagedObjectModel) {
            func isSuffixed(_ name: String) -> Bool { name.last?.isNumber == true && !name.hasSuffix("_") }
            for table in schema.tables {
                suffixedColumns += table.columns.filter { if case .attribute = $0.role { isSuffixed($0.name) } else { false } }.count
                suffixedOrderColumns += table.columns.filter { $0.name.hasPrefix("Z_FOK_") && isSuffixed($0.name) }.count
            }
            joinTables += schema.joinTables.count
            for join in schema.joinTables {
                suffixedJoinColumns += join.columns.prefix(2).filter(isSuffixed).count
                orderedJoinSides += join.columns.count - 2
                reflexiveJoins += join.columns.contains("REFLEXIVE") ? 1 : 0
            }
            // The names the model's index definitions give (§6), and how many of them repeat one.
            for entity in model.entities {
                var names = entity.attributes.filter(\.isIndexed).map(\.name)
                for index in entity.indexes {
                    names.append(index.name)
                    if index.elements.count == 1, entity.attributes.contains(where: { $0.name == index.elements[0].propertyName }) {
                        names.append(index.elements[0].propertyName)
                    }
                }
                indexNamesGivenTwice += names.count - Set(names.map { $0.uppercased() }).count
            }
        }

        var description: String {
            "suffixed columns \(suffixedColumns), suffixed join columns \(suffixedJoinColumns), suffixed order columns "
                + "\(suffixedOrderColumns), join tables \(joinTables), ordered join sides \(orderedJoinSides), reflexive joins "
                + "\(reflexiveJoins), index names given twice \(indexNamesGivenTwice)"
        }
    }

    /// §3, §4, §5, §6, read off the derived schema and the model.
    static func checkRules(_ schema: CoreDataSQLiteSchema, _ model: ManagedObjectModel, seed: UInt64) {
        func unique(_ names: [String], _ what: String) {
            let folded = names.map { $0.uppercased() }
            #expect(Set(folded).count == folded.count, "seed \(seed): \(what) named twice: \(names.sorted())")
        }
        unique(schema.tables.map(\.name) + schema.joinTables.map(\.name), "tables")
        unique(schema.indexes.map(\.name), "indexes")
        for table in schema.tables { unique(["Z_PK", "Z_ENT", "Z_OPT"] + table.columns.map(\.name), "columns of \(table.name)") }
        for join in schema.joinTables { unique(join.columns, "columns of \(join.name)") }

        func suffixed(_ name: String, base: String) -> Bool {
            name.hasPrefix(base) && name.dropFirst(base.count).allSatisfy(\.isNumber)
        }
        let numbers = Dictionary(uniqueKeysWithValues: schema.entities.map { ($0.name, $0) })
        for entity in model.entities {
            guard let table = numbers[entity.name].flatMap({ own in schema.tables.first { $0.name == own.table } }) else {
                Issue.record("seed \(seed): \(entity.name) has no table")
                continue
            }
            // §3: each attribute and to-one of the entity has one column, `Z` + its name in
            // capitals, maybe with a suffix.
            for attribute in entity.attributes where !attribute.isTransient && attribute.type != .composite {
                let columns = table.columns.filter { $0.role == .attribute(entity: entity.name, name: attribute.name) }
                #expect(columns.count == 1 && suffixed(columns[0].name, base: "Z" + attribute.name.uppercased()),
                        "seed \(seed): \(entity.name).\(attribute.name) → \(columns.map(\.name))")
            }
            for relationship in entity.relationships where !relationship.isToMany && !relationship.isTransient {
                let keys = table.columns.filter { $0.role == .foreignKey(entity: entity.name, relationship: relationship.name) }
                #expect(keys.count == 1 && suffixed(keys[0].name, base: "Z" + relationship.name.uppercased()),
                        "seed \(seed): \(entity.name).\(relationship.name) → \(keys.map(\.name))")
                // A `Z_FOK_` column exactly when the inverse is an ordered to-many.
                let inverse = relationship.inverseName.flatMap { model.entitiesByName[relationship.destinationEntityName]?.relationshipsByName[$0] }
                let orders = table.columns.filter { $0.role == .foreignOrder(entity: entity.name, relationship: relationship.name) }
                let wantsOrder = inverse.map { $0.isToMany && $0.isOrdered } ?? false
                #expect(orders.count == (wantsOrder ? 1 : 0), "seed \(seed): \(entity.name).\(relationship.name) order columns \(orders.map(\.name))")
                if let order = orders.first {
                    #expect(suffixed(order.name, base: "Z_FOK_" + relationship.name.uppercased()), "seed \(seed): \(order.name)")
                }
            }
            // §4: each many-to-many pair has one join table, named after the side that owns it.
            for relationship in entity.relationships where relationship.isToMany {
                guard let inverseName = relationship.inverseName,
                    let inverse = model.entitiesByName[relationship.destinationEntityName]?.relationshipsByName[inverseName], inverse.isToMany
                else { continue }
                let mine = "\(entity.name).\(relationship.name)"
                let joins = schema.joinTables.filter { $0.owner == mine || $0.inverse == mine }
                guard joins.count == 1, let join = joins.first else {
                    Issue.record("seed \(seed): \(mine) has \(joins.count) join tables")
                    continue
                }
                let owner = join.owner.split(separator: ".").map(String.init)
                let ownerNumber = numbers[owner[0]]?.number ?? -1
                #expect(suffixed(join.name, base: "Z_\(ownerNumber)\(owner[1].uppercased())"), "seed \(seed): \(join.name) for \(join.owner)")
                #expect(join.primaryKey == Array(join.columns.prefix(2)))
            }
        }
    }

    /// What the store created is what the schema says, object for object.
    static func checkFile(at url: URL, against schema: CoreDataSQLiteSchema, seed: UInt64) throws {
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false, busyTimeout: .seconds(5))
        var created: Set<String> = []
        try connection.statement("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'").forEachRow { row in
            if case .text(let sql) = row.value(0) { created.insert(sql) }
        }
        let derived = Set(schema.createStatements)
        #expect(created.subtracting(derived).sorted() == [], "seed \(seed): created, not derived")
        #expect(derived.subtracting(created).sorted() == [], "seed \(seed): derived, not created")
    }

    /// Generated objects, linked at random, saved and read back through a new coordinator;
    /// with `changingAgain`, most of them changed and saved a second time before.
    static func checkRoundTrip(
        _ model: ManagedObjectModel, at url: URL, type: StoreType = .sqlite, changingAgain: Bool = false, seed: UInt64,
        generator: inout ModelGenerator
    ) async throws {
        // PostgreSQL's text holds no NUL character (docs/PostgresStore.md): such a save fails.
        let values = GeneratedValues(seed: seed, textHoldsNUL: type != .postgreSQL)
        let saved: [Snapshot]
        do {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try await coordinator.addPersistentStore(type: type, at: url)
            saved = try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator).perform { context in
                var values = values
                let saved = try values.fill(context, model: model)
                guard changingAgain else { return saved }
                return try values.changeAgain(context)
            }
        }
        // Read as rows, then (a SQL store) every row into columns: a large fetch's way, which
        // two or three objects an entity would not take.
        for rowsBeforeColumns in [ColumnReads.rowsBeforeColumns, 0] {
            let coordinator = PersistentStoreCoordinator(managedObjectModel: model)
            try await coordinator.addPersistentStore(type: type, at: url)
            let read = try await ColumnReads.$rowsBeforeColumns.withValue(rowsBeforeColumns) {
                try await ManagedObjectContext(concurrencyType: .privateQueue, persistentStoreCoordinator: coordinator).perform { context in
                    try model.entities.flatMap { entity in
                        var request = FetchRequest<ManagedObject>(entityName: entity.name)
                        request.includesSubentities = false
                        return try context.fetch(request).map(Snapshot.init)
                    }
                }
            }
            let expected = Dictionary(uniqueKeysWithValues: saved.map { ($0.id, $0) })
            let way = rowsBeforeColumns == 0 ? "read into columns" : "read"
            #expect(read.count == saved.count, "seed \(seed): \(saved.count) objects saved, \(read.count) \(way)")
            for object in read {
                guard let original = expected[object.id] else {
                    Issue.record("seed \(seed): \(object.id) was not saved (\(way))")
                    continue
                }
                for key in original.values.keys.sorted() {
                    #expect(object.values[key] == original.values[key], "seed \(seed): \(object.id) \(key) (\(way))")
                }
            }
        }
    }

    /// An object's attribute values and relationship targets (IDs; a to-many's in order when
    /// ordered), as text that compares exactly.
    struct Snapshot: Sendable {
        var id: String
        var values: [String: String]

        init(_ object: ManagedObject) throws {
            id = object.objectID.uriRepresentation().absoluteString
            var values: [String: String] = [:]
            for attribute in object.entity.attributesByName.values {
                values[attribute.name] = String(describing: try object.primitiveAttributeValue(forKey: attribute.name))
            }
            for relationship in object.entity.relationshipsByName.values {
                let value = try object.value(forKey: relationship.name)
                let ids: [String] =
                    switch value {
                    case let object as ManagedObject: [object.objectID.uriRepresentation().absoluteString]
                    case let array as [ManagedObject]: array.map { $0.objectID.uriRepresentation().absoluteString }
                    case let set as Set<ManagedObject>: set.map { $0.objectID.uriRepresentation().absoluteString }.sorted()
                    default: []
                    }
                values[relationship.name] = ids.joined(separator: " ")
            }
            self.values = values
        }
    }
}

/// Random objects for a generated model: attribute values of every type that read back exactly,
/// and random links (set through key-value coding, so inverses follow).
struct GeneratedValues: Sendable {
    private var random: SplitMix64
    /// Whether strings may hold the character NUL (U+0000).
    private let textHoldsNUL: Bool

    init(seed: UInt64, textHoldsNUL: Bool = true) {
        random = SplitMix64(seed: seed ^ 0xA5A5_A5A5)
        self.textHoldsNUL = textHoldsNUL
    }

    mutating func fill(_ context: isolated ManagedObjectContext, model: ManagedObjectModel) throws -> [GeneratedSchemaTests.Snapshot] {
        var objects: [String: [ManagedObject]] = [:]
        for entity in model.entities where !entity.isAbstract {
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let object = try context.insertNewObject(forEntityName: entity.name)
                for attribute in entity.attributesByName.values where Bool.random(using: &random) {
                    try object.setPrimitiveValue(value(of: attribute.type), forKey: attribute.name)
                }
                objects[entity.name, default: []].append(object)
            }
        }
        func instances(of entity: String) -> [ManagedObject] {
            let descendants = model.entities.filter { candidate in
                var current: String? = candidate.name
                while let name = current {
                    if name == entity { return true }
                    current = model.entitiesByName[name]?.superentityName
                }
                return false
            }
            return descendants.flatMap { objects[$0.name] ?? [] }
        }
        for object in objects.values.flatMap({ $0 }) {
            for relationship in object.entity.relationshipsByName.values.sorted(by: { $0.name < $1.name }) {
                let targets = instances(of: relationship.destinationEntityName).shuffled(using: &random)
                if relationship.isToMany {
                    let chosen = Array(targets.prefix(Int.random(in: 0...min(3, targets.count), using: &random)))
                    try object.setValue(relationship.isOrdered ? chosen as Any : Set(chosen) as Any, forKey: relationship.name)
                } else if Bool.random(using: &random) {
                    try object.setValue(targets.first, forKey: relationship.name)
                }
            }
        }
        try context.save()
        return try objects.values.flatMap { $0 }.map(GeneratedSchemaTests.Snapshot.init)
    }

    /// Sets new values (`nil` for some) on most of the context's objects, in attributes chosen
    /// per entity — so that objects of one entity change the same columns, and a store that
    /// writes them together does — then saves, and returns every object's snapshot.
    mutating func changeAgain(_ context: isolated ManagedObjectContext) throws -> [GeneratedSchemaTests.Snapshot] {
        let objects = context.registeredObjects.sorted { $0.objectID.uriRepresentation().absoluteString < $1.objectID.uriRepresentation().absoluteString }
        var chosen: [String: [AttributeDescription]] = [:]
        for object in objects where random.next() % 4 != 0 {
            let entity = object.entity
            if chosen[entity.name] == nil {
                chosen[entity.name] = entity.attributesByName.values.sorted(by: { $0.name < $1.name }).filter { _ in Bool.random(using: &random) }
            }
            for attribute in chosen[entity.name] ?? [] {
                let value = random.next() % 5 == 0 && attribute.isOptional ? nil : value(of: attribute.type)
                try object.setPrimitiveValue(value, forKey: attribute.name)
            }
        }
        try context.save()
        return try objects.map(GeneratedSchemaTests.Snapshot.init)
    }

    private mutating func value(of type: AttributeType) -> AttributeValue? {
        let bits = random.next()
        return switch type {
        case .string: .string(["", "plain", "naïve café ☕️", "line\nbreak", textHoldsNUL ? "\u{0}nul" : "nul", String(bits, radix: 36)][Int(bits % 6)])
        case .integer16: .integer16(Int16(truncatingIfNeeded: bits))
        case .integer32: .integer32(Int32(truncatingIfNeeded: bits))
        case .integer64: .integer64(Int64(bitPattern: bits))
        case .double: .double(Double(Int64(bitPattern: bits)) / 1_000_003)
        case .float: .float(Float(Int32(truncatingIfNeeded: bits)) / 7)
        // Core Data keeps decimals as REAL (§8): one that a double holds exactly.
        case .decimal: .decimal(Decimal(Int32(truncatingIfNeeded: bits)) / 4)
        case .boolean: .boolean(bits & 1 == 1)
        case .date: .date(Date(timeIntervalSinceReferenceDate: Double(Int32(truncatingIfNeeded: bits)) + 0.125))
        case .binaryData: .binaryData(Data((0..<Int(bits % 40)).map { UInt8(truncatingIfNeeded: bits >> ($0 % 56)) }))
        case .uuid: .uuid(UUID(uuid: withUnsafeBytes(of: (bits, bits &* 31)) { $0.load(as: uuid_t.self) }))
        case .uri: .uri(URL(string: "https://example.com/\(bits)")!)
        default: nil
        }
    }
}
