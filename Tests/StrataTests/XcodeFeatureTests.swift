import Foundation
import Strata
import Testing

/// What Xcode's model editor writes, in a model file of our own (`Tests/Models/XcodeFeatures`),
/// read as Core Data reads it.
@Suite struct XcodeFeatureTests {
    static let file = Fixtures.models.appendingPathComponent("XcodeFeatures.xcdatamodel")

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(contentsOf: file)
    }

    @Test func everyKindOfAttributeLoads() throws {
        let quake = try #require(try Self.model().entity(named: "Quake"))
        let attributes = quake.attributesByName
        #expect(attributes["scratch"]?.type == .undefined, "an <attribute> with no attributeType is Undefined")
        #expect(attributes["source"]?.type == .objectID)
        #expect(attributes["reportCount"]?.derivationExpression == "reports.@count")
        let magnitude = try #require(attributes["magnitude"])
        #expect(magnitude.type == .composite)
        #expect(magnitude.compositeName == "Magnitude")
        #expect(magnitude.compositeElements.map(\.name) == ["richter", "scale"])
        #expect(magnitude.compositeElements.first?.defaultValue == .double(0))
        #expect(quake.fetchedProperties.map(\.name) == ["sameRegion"])
        #expect(quake.indexes.map(\.name) == ["compoundIndex1"])
        #expect(quake.userInfo == ["source": "usgs"])
    }

    /// Core Data coerces through NSNumber; `strata models show` lists each coercion.
    @Test func oddDefaultAndBoundStringsAreCoercedAndNoted() throws {
        let model = try Self.model()
        let attributes = try #require(model.entity(named: "Quake")).attributesByName
        #expect(attributes["depth"]?.defaultValue == .integer64(0))
        #expect(attributes["felt"]?.defaultValue == .integer16(Int16.max))
        #expect(attributes["rank"]?.defaultValue == .integer32(1))
        #expect(attributes["rank"]?.minimumValue == .integer32(0))
        #expect(attributes["tsunami"]?.defaultValue == .boolean(true))
        #expect(attributes["latitude"]?.defaultValue == nil)
        #expect(attributes["place"]?.minimumLength == nil)
        #expect(attributes["place"]?.maximumLength == 80)
        #expect(model.fileNotes.sorted() == [
            #"Quake.depth: defaultValueString="0.0" on a Integer 64 attribute is taken as 0, as Core Data reads it"#,
            #"Quake.felt: defaultValueString="70000" on a Integer 16 attribute is out of range and taken as 32767, as Core Data reads it"#,
            #"Quake.latitude: defaultValueString="" on a Double attribute is no value, as Core Data reads it"#,
            #"Quake.place: maxValueString="80.0" on a String attribute is taken as 80, as Core Data reads it"#,
            #"Quake.place: minValueString="-1" on a String attribute is no bound (a length cannot be negative), as Core Data reads it"#,
            #"Quake.rank: defaultValueString="1.9" on a Integer 32 attribute is taken as 1, as Core Data reads it"#,
            #"Quake.rank: minValueString="0.0" on a Integer 32 attribute is taken as 0, as Core Data reads it"#,
            #"Quake.tsunami: defaultValueString="2" on a Boolean attribute is taken as YES, as Core Data reads it"#,
        ])
    }

    @Test func countsAreKeptAsTheFileGivesThem() throws {
        let model = try Self.model()
        let quake = try #require(model.entity(named: "Quake")).relationshipsByName
        #expect(quake["region"]?.minCount == 1, "an older Xcode's minCount on an optional to-one counts in the hash")
        #expect(quake["reports"]?.maxCount == -1)
    }

    @Test func undefinedAndCompositeAttributesWorkInABinaryStore() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("Quakes.store")
        let coordinator = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        let store = try await coordinator.addPersistentStore(type: .binary, at: url)
        try await backgroundContext(coordinator).perform { context in
            let quake = try context.insertNewObject(forEntityName: "Quake")
            try quake.setValue("KX1", forKey: "code")
            try quake.setValue(42, forKey: "scratch")
            #expect(try quake.value(forKey: "scratch") as? Int64 == 42)
            try quake.setValue("words", forKey: "scratch")
            #expect(try quake.value(forKey: "scratch") as? String == "words")
            try quake.setValue(["richter": 6.1, "scale": "Mw"], forKey: "magnitude")
            try context.save()
        }
        try await coordinator.removePersistentStore(store)

        let reopened = PersistentStoreCoordinator(managedObjectModel: try Self.model())
        try await reopened.addPersistentStore(type: .binary, at: url)
        try await backgroundContext(reopened).perform { context in
            let quake = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Quake")).first)
            #expect(try quake.value(forKey: "scratch") == nil, "a transient value is never stored")
            // A composite's value is the JSON of its elements, as a transformable's is.
            let json = try #require(try quake.value(forKey: "magnitude") as? Data)
            let magnitude = try JSONSerialization.jsonObject(with: json) as? [String: Any]
            #expect(magnitude?["richter"] as? Double == 6.1)
            #expect(magnitude?["scale"] as? String == "Mw")
        }
    }

    @Test func aStoredUndefinedAttributeIsRefusedAsCoreDataRefusesIt() throws {
        let entity = EntityDescription(name: "Thing", attributes: [AttributeDescription(name: "anything", type: .undefined, isOptional: true)])
        let error = #expect(throws: ModelError.self) { try ManagedObjectModel(entities: [entity]) }
        #expect(error?.description == "Invalid model (Thing.anything): its type is Undefined, which only a transient attribute may have (as in Core Data)")
    }

    @Test func theModelWritesBackAsItWasRead() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try Self.model()
        let copy = directory.appendingPathComponent("Copy.xcdatamodel")
        try model.write(toModelAt: copy)
        let reread = try ManagedObjectModel(contentsOf: copy)
        #expect(reread.entityVersionHashesByName == model.entityVersionHashesByName)
        #expect(reread.entity(named: "Quake")?.attributesByName["magnitude"] == model.entity(named: "Quake")?.attributesByName["magnitude"])
        #expect(reread.entity(named: "Quake")?.attributesByName["scratch"]?.type == .undefined)
    }

    @Test func anEmptyCurrentVersionFileMeansTheNewest() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("Quakes.xcdatamodeld")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let model = try Self.model()
        try model.write(toModelAt: bundle.appendingPathComponent("Quakes.xcdatamodel"))
        try model.write(toModelAt: bundle.appendingPathComponent("Quakes 2.xcdatamodel"))
        try Data().write(to: bundle.appendingPathComponent(".xccurrentversion"))
        #expect(try ModelBundle(contentsOf: bundle).currentVersion.name == "Quakes 2")
    }
}
