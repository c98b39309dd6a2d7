import Foundation

extension CoreDataMappingFile {
    /// The object types of an `xcmapping.xml` (`fixtures/compiled/README.md`).
    private enum XcodeType {
        static let model = "XDDEVMAPPINGMODEL"
        static let entity = "XDDEVENTITYMAPPING"
        static let attribute = "XDDEVATTRIBUTEMAPPING"
        static let relationship = "XDDEVRELATIONSHIPMAPPING"
        static let all: Set = [model, entity, attribute, relationship]
    }

    /// Reads an Xcode mapping model's `xcmapping.xml`, a Core Data XML store of Xcode's
    /// editing objects: one `XDDEVMAPPINGMODEL` (the two model versions' paths, and Xcode's own
    /// archives of them, which are not `NSManagedObjectModel`s and are not read), its
    /// `XDDEVENTITYMAPPING`s in `mappingnumber` order, and their `XDDEVATTRIBUTEMAPPING`s and
    /// `XDDEVRELATIONSHIPMAPPING`s in the order the file lists them. A property's
    /// `valueexpressiondata` is an archived `NSExpression`; without one, `autogenerateexpression`
    /// on its entity mapping asks for the source's property of the same name, as momc compiles it.
    ///
    /// - Throws: ``ModelFileError`` naming the file, the object and its line: an object type
    ///   that is not a mapping model's, no or two `XDDEVMAPPINGMODEL`s, an entity mapping
    ///   without entities, a property mapping without a name, an expression that cannot be read.
    init(xcodeMappingAt url: URL) throws {
        try self.init(xcodeMapping: try CoreDataXMLDocument(contentsOf: url))
    }

    /// As ``init(xcodeMappingAt:)``, from the bytes of `file`.
    init(xcodeMapping data: Data, file url: URL) throws {
        try self.init(xcodeMapping: try CoreDataXMLDocument(data, file: url))
    }

    private init(xcodeMapping document: CoreDataXMLDocument) throws {
        let url = document.file
        if let foreign = document.objects.first(where: { !XcodeType.all.contains($0.type) }) {
            throw ModelFileError(
                .notAModel, file: url, line: foreign.line,
                "the object \(foreign.id) is a \(foreign.type): the file is not an Xcode mapping model (its objects are \(XcodeType.all.sorted().joined(separator: ", ")))")
        }
        let roots = document.objects(ofType: XcodeType.model)
        guard roots.count == 1, let root = roots.first else {
            throw ModelFileError(.notAModel, file: url, "an Xcode mapping model has one \(XcodeType.model) object; this file has \(roots.count)")
        }
        var entities: [(number: Int, order: Int, entity: Entity)] = []
        for (order, object) in document.targets(of: root, "entitymappings").enumerated() {
            let place = "\(object.type) \(object.id) (line \(object.line))"
            let source = Self.nonEmpty(object[attribute: "sourcename"])
            let destination = Self.nonEmpty(object[attribute: "destinationname"])
            guard source != nil || destination != nil else {
                throw ModelFileError(.invalidValue, file: url, line: object.line, "the entity mapping \(object.id) has no source and no destination entity")
            }
            let fills = Self.bool(object[attribute: "autogenerateexpression"])
            var filter = Self.nonEmpty(object[attribute: "sourcefilterpredicatestring"])
            if !fills, let data = object[attribute: "sourceexpressiondata"] {
                filter = try Self.sourceFilter(of: try Self.expression(data, place: place, file: url, line: object.line), place: place, file: url)
            }
            var entity = Entity(
                name: Self.nonEmpty(object[attribute: "name"]) ?? Self.defaultName(source: source, destination: destination),
                source: source, destination: destination, policyClassName: Self.nonEmpty(object[attribute: "migrationpolicyclassname"]),
                sourceFilter: filter, fillsUnwrittenProperties: fills, attributes: [], relationships: [], place: place)
            for (key, relationship) in [(\Entity.attributes, "attributemappings"), (\Entity.relationships, "relationshipmappings")] {
                for property in document.targets(of: object, relationship) {
                    guard let name = Self.nonEmpty(property[attribute: "name"]) else {
                        throw ModelFileError(.missingAttribute, file: url, line: property.line, "the property mapping \(property.id) of \(entity.name) has no name")
                    }
                    let expression = try property[attribute: "valueexpressiondata"].flatMap {
                        try Self.expression($0, place: "\(entity.name).\(name)", file: url, line: property.line)
                    }
                    entity[keyPath: key].append(
                        Property(name: name, expression: expression, sourceKeyPath: Self.nonEmpty(property[attribute: "sourcekeypath"])))
                }
            }
            entities.append((Int(object[attribute: "mappingnumber"] ?? "") ?? Int.max, order, entity))
        }
        self.file = url
        self.entities = entities.sorted { ($0.number, $0.order) < ($1.number, $1.order) }.map(\.entity)
        sourceModelPath = Self.nonEmpty(root[attribute: "sourcemodelpath"])
        destinationModelPath = Self.nonEmpty(root[attribute: "destinationmodelpath"])
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }

    private static func bool(_ text: String?) -> Bool {
        ["1", "YES", "true"].contains(text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
    }

    /// An archived expression written in base64, as the XML store writes `binary` values.
    private static func expression(_ base64: String, place: String, file: URL, line: Int) throws -> ValueExpression? {
        guard let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters) else {
            throw ModelFileError(.invalidValue, file: file, line: line, "\(place): the value expression is not base64")
        }
        do {
            return try ArchivedExpression.read(archiveData: data)
        } catch let error as ArchivedExpression.Unreadable {
            throw ModelFileError(.invalidValue, file: file, line: line, "\(place): the value expression cannot be read: \(error.description)")
        }
    }

    /// The predicate of an entity mapping's source expression, Core Data's
    /// `FETCH(FUNCTION($manager, "fetchRequestForSourceEntityNamed:predicateString:", entity,
    /// predicate), $manager.sourceContext, NO)`; `nil` for `TRUEPREDICATE` (every object).
    static func sourceFilter(of expression: ValueExpression?, place: String, file: URL) throws -> String? {
        guard let expression else { return nil }
        guard case .function("FETCH", let arguments) = expression, case .function(let request, let requestArguments)? = arguments.first,
            request == "FUNCTION:fetchRequestForSourceEntityNamed:predicateString:", requestArguments.count == 3,
            case .constant(.string(let predicate)) = requestArguments[2]
        else {
            throw ModelFileError(
                .invalidValue, file: file,
                "\(place): its source expression \(expression) is not the fetch Xcode writes (fetchRequestForSourceEntityNamed:predicateString:)")
        }
        let trimmed = predicate.trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty || trimmed.uppercased() == "TRUEPREDICATE" ? nil : trimmed
    }
}
