import Foundation
import Strata
import Testing

/// Every attribute type survives a save and a read from a fresh context.
@Suite struct AttributeRoundTripTests {
    struct Point: Codable, Equatable { var x: Int; var y: Int }

    /// A value of every type; `related` stands for an object ID (IDs come from a store).
    static func samples(related: ManagedObjectID) -> [(AttributeType, AttributeValue)] { [
        (.integer16, .integer16(-12_345)),
        (.integer32, .integer32(2_000_000_000)),
        (.integer64, .integer64(-9_000_000_000_000)),
        (.decimal, .decimal(Decimal(string: "12345.6789")!)),
        (.double, .double(3.141_592_653_589_793)),
        (.float, .float(2.5)),
        (.string, .string("Größe — 大きさ 📚")),
        (.boolean, .boolean(true)),
        (.date, .date(Date(timeIntervalSince1970: 1_700_000_000.25))),
        (.binaryData, .binaryData(Data([0, 1, 2, 255]))),
        (.uuid, .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)),
        (.uri, .uri(URL(string: "https://example.org/a?b=c")!)),
        (.transformable, .transformable(try! JSONEncoder().encode(Point(x: 1, y: 2)))),
        (.objectID, .objectID(related)),
    ] }

    static func model(_ type: AttributeType) throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Thing") {
                AttributeDescription("value", type)
                AttributeDescription("scratch", type, optional: true, transient: true)
            }
            EntityDescription("Other")
        }
    }

    @Test(arguments: AttributeType.valueTypes)
    func roundTrips(_ type: AttributeType) async throws {
        let coordinator = try await makeCoordinator(Self.model(type))
        let (id, value) = try await backgroundContext(coordinator).perform { context in
            let other = try context.insertNewObject(forEntityName: "Other")
            try context.save()
            let value = try #require(Self.samples(related: other.objectID).first { $0.0 == type }?.1)
            let thing = try context.insertNewObject(forEntityName: "Thing")
            try thing.setPrimitiveValue(value, forKey: "value")
            try thing.setPrimitiveValue(value, forKey: "scratch")
            try context.save()
            return (thing.objectID, value)
        }
        let (read, scratch) = try await backgroundContext(coordinator).perform { context in
            let thing = try context.existingObject(with: id)
            return (try thing.primitiveAttributeValue(forKey: "value"), try thing.primitiveAttributeValue(forKey: "scratch"))
        }
        #expect(read == value)
        #expect(read?.type == type)
        #expect(scratch == nil, "transient values are never stored")
    }

    @Test func typedAccessorsConvertSwiftValues() async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Reading", class: Reading.self) {
                AttributeDescription("count", .integer16)
                AttributeDescription("ratio", .float, optional: true)
                AttributeDescription("point", .transformable, optional: true)
            }
        }
        let coordinator = try await makeCoordinator(model)
        let id = try await backgroundContext(coordinator).perform { context in
            let reading = try Reading(context: context)
            reading.count = 300
            reading.ratio = 0.5
            reading.points = [Point(x: 3, y: 4)]
            try context.save()
            return reading.objectID
        }
        let (count, ratio, points) = try await backgroundContext(coordinator).perform { context in
            let reading = try #require(try context.existingObject(with: id) as? Reading)
            return (reading.count, reading.ratio, reading.points)
        }
        #expect(count == 300)
        #expect(ratio == 0.5)
        #expect(points == [Point(x: 3, y: 4)])
    }

    @Test func aValueTooLargeForItsTypeIsRefusedAtSave() async throws {
        let model = try ManagedObjectModel {
            EntityDescription("Reading", class: Reading.self) { AttributeDescription("count", .integer16) }
        }
        let coordinator = try await makeCoordinator(model)
        let error = try await backgroundContext(coordinator).perform { context in
            let reading = try Reading(context: context)
            reading.count = 70_000
            return #expect(throws: ValidationError.self) { try context.save() }
        }
        #expect(error?.code == .wrongType)
        #expect(error?.description == "Reading.count: a Integer 64 value does not fit a Integer 16 attribute")
    }

    final class Reading: ManagedObject {
        @Attribute("count") var count: Int
        @Attribute("ratio") var ratio: Double?
        @Attribute("point") var points: [Point]?
    }
}


extension AttributeType {
    /// The types that have values of their own: not Undefined (transient only, any kind of
    /// value) nor Composite (its value is its elements', kept as transformable JSON).
    static let valueTypes = allCases.filter { $0 != .undefined && $0 != .composite }
}
