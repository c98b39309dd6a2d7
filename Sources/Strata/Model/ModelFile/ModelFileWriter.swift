import Foundation

/// Writes a model as the `contents` of an Xcode `.xcdatamodel`, in the form Xcode writes:
/// entities and their properties sorted by name, YES/NO flags, dates as seconds since 2001.
struct ModelFileWriter {
    let model: ManagedObjectModel
    private var lines: [String] = []

    init(model: ManagedObjectModel) {
        self.model = model
    }

    mutating func write() -> String {
        lines = [#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#]
        var root: [(String, String?)] = [
            ("type", "com.apple.IDECoreDataModeler.DataModel"), ("documentVersion", "1.0"),
            ("lastSavedToolsVersion", "1"), ("systemVersion", "Strata"), ("minimumToolsVersion", "Automatic"),
            ("sourceLanguage", "Swift"),
        ]
        root.append(("userDefinedModelVersionIdentifier", model.versionIdentifiers.sorted().first ?? ""))
        open("model", root, depth: 0)
        for entity in model.entities.sorted(by: { $0.name < $1.name }) {
            write(entity)
        }
        writeComposites()
        for template in model.fetchRequestTemplates.sorted(by: { $0.name < $1.name }) {
            element(
                "fetchRequest",
                [("name", template.name), ("entity", template.entityName), ("predicateString", template.predicateFormat)], depth: 1)
        }
        for (name, members) in model.configurations.sorted(by: { $0.key < $1.key }) {
            open("configuration", [("name", name)], depth: 1)
            for member in members { element("memberEntity", [("name", member)], depth: 2) }
            close("configuration", depth: 1)
        }
        close("model", depth: 0)
        return lines.joined(separator: "\n") + "\n"
    }

    private mutating func write(_ entity: EntityDescription) {
        open(
            "entity",
            [
                ("name", entity.name), ("representedClassName", entity.managedObjectClassName),
                ("parentEntity", entity.superentityName), ("isAbstract", entity.isAbstract ? "YES" : nil),
                ("elementID", entity.renamingIdentifier), ("versionHashModifier", entity.versionHashModifier),
                ("codeGenerationType", entity.codeGenerationType), ("syncable", "YES"),
            ], depth: 1)
        for attribute in entity.attributes.sorted(by: { $0.name < $1.name }) { write(attribute) }
        for relationship in entity.relationships.sorted(by: { $0.name < $1.name }) { write(relationship) }
        for fetched in entity.fetchedProperties.sorted(by: { $0.name < $1.name }) {
            open("fetchedProperty", [("name", fetched.name), ("optional", fetched.isOptional ? "YES" : nil)], depth: 2)
            element(
                "fetchRequest",
                [("name", "fetchedPropertyFetchRequest"), ("entity", fetched.destinationEntityName),
                 ("predicateString", fetched.predicateFormat)], depth: 3)
            writeUserInfo(fetched.userInfo, depth: 3)
            close("fetchedProperty", depth: 2)
        }
        if !entity.uniquenessConstraints.isEmpty {
            open("uniquenessConstraints", [], depth: 2)
            for constraint in entity.uniquenessConstraints {
                open("uniquenessConstraint", [], depth: 3)
                for name in constraint { element("constraint", [("value", name)], depth: 4) }
                close("uniquenessConstraint", depth: 3)
            }
            close("uniquenessConstraints", depth: 2)
        }
        let compound = entity.indexes.filter(\.isCompoundIndex)
        if !compound.isEmpty {
            open("compoundIndexes", [], depth: 2)
            for index in compound {
                open("compoundIndex", [], depth: 3)
                for item in index.elements { element("index", [("value", item.propertyName)], depth: 4) }
                close("compoundIndex", depth: 3)
            }
            close("compoundIndexes", depth: 2)
        }
        for index in entity.indexes where !index.isCompoundIndex {
            open("fetchIndex", [("name", index.name)], depth: 2)
            for item in index.elements {
                element(
                    "fetchIndexElement",
                    [
                        item.expression == nil ? ("property", item.propertyName) : ("expression", item.expression),
                        ("type", item.isRTree ? "RTree" : "Binary"), ("order", item.isAscending ? "ascending" : "descending"),
                    ], depth: 3)
            }
            close("fetchIndex", depth: 2)
        }
        writeUserInfo(entity.userInfo, depth: 2)
        close("entity", depth: 1)
    }

    private mutating func write(_ attribute: AttributeDescription, depth: Int = 2) {
        var fields: [(String, String?)] = [
            ("name", attribute.name), ("optional", flag(attribute.isOptional)), ("transient", flag(attribute.isTransient)),
            // Xcode writes no type for Undefined.
            ("attributeType", attribute.type == .undefined ? nil : attribute.type.rawValue),
            ("composite", attribute.type == .composite ? Self.compositeName(of: attribute) : nil),
        ]
        if attribute.type == .string || attribute.type == .binaryData {
            fields += [("minValueString", attribute.minimumLength.map(String.init)),
                       ("maxValueString", attribute.maximumLength.map(String.init))]
        } else if attribute.type == .date {
            fields += [("minDateTimeInterval", attribute.minimumValue.flatMap(Self.text)),
                       ("maxDateTimeInterval", attribute.maximumValue.flatMap(Self.text))]
        } else {
            fields += [("minValueString", attribute.minimumValue.flatMap(Self.text)),
                       ("maxValueString", attribute.maximumValue.flatMap(Self.text))]
        }
        fields += [
            ("regularExpressionString", attribute.regularExpression),
            (attribute.type == .date ? "defaultDateTimeInterval" : "defaultValueString", attribute.defaultValue.flatMap(Self.text)),
            ("usesScalarValueType", attribute.usesScalarValueType ? "YES" : nil),
            ("allowsExternalBinaryDataStorage", flag(attribute.allowsExternalBinaryDataStorage)),
            ("valueTransformerName", attribute.valueTransformerName), ("customClassName", attribute.attributeValueClassName),
            ("indexed", flag(attribute.isIndexed)), ("derived", attribute.derivationExpression == nil ? nil : "YES"),
            ("derivationExpression", attribute.derivationExpression),
            ("preserveAfterDeletion", flag(attribute.preservesValueInHistoryOnDeletion)),
            ("elementID", attribute.renamingIdentifier), ("versionHashModifier", attribute.versionHashModifier),
        ]
        leafOrUserInfo("attribute", fields, attribute.userInfo, depth: depth)
    }

    /// The name of a composite's model-level definition: its own, else one made from the attribute's.
    static func compositeName(of attribute: AttributeDescription) -> String {
        attribute.compositeName ?? attribute.name.prefix(1).uppercased() + attribute.name.dropFirst()
    }

    /// Xcode's model-level `<composite>` definitions, one per name, nested ones included.
    private mutating func writeComposites() {
        var written: Set<String> = []
        var pending = model.entities.flatMap(\.attributes).filter { $0.type == .composite }
        while let composite = pending.first {
            pending.removeFirst()
            let name = Self.compositeName(of: composite)
            guard written.insert(name).inserted else { continue }
            open("composite", [("name", name)], depth: 1)
            for element in composite.compositeElements.sorted(by: { $0.name < $1.name }) { write(element, depth: 2) }
            close("composite", depth: 1)
            pending += composite.compositeElements.filter { $0.type == .composite }
        }
    }

    private mutating func write(_ relationship: RelationshipDescription) {
        let fields: [(String, String?)] = [
            ("name", relationship.name), ("optional", flag(relationship.isOptional)),
            ("transient", flag(relationship.isTransient)), ("toMany", flag(relationship.isToMany)),
            ("ordered", flag(relationship.isToMany && relationship.isOrdered)),
            ("minCount", relationship.minCount != 0 ? String(relationship.minCount) : nil),
            ("maxCount", relationship.isToMany ? (relationship.maxCount != 0 ? String(relationship.maxCount) : nil) : "1"),
            ("deletionRule", relationship.deleteRule.rawValue), ("destinationEntity", relationship.destinationEntityName),
            ("inverseName", relationship.inverseName),
            ("inverseEntity", relationship.inverseName == nil ? nil : relationship.destinationEntityName),
            ("elementID", relationship.renamingIdentifier), ("versionHashModifier", relationship.versionHashModifier),
        ]
        leafOrUserInfo("relationship", fields, relationship.userInfo)
    }

    private mutating func leafOrUserInfo(
        _ name: String, _ fields: [(String, String?)], _ userInfo: [String: String], depth: Int = 2
    ) {
        guard !userInfo.isEmpty else {
            element(name, fields, depth: depth)
            return
        }
        open(name, fields, depth: depth)
        writeUserInfo(userInfo, depth: depth + 1)
        close(name, depth: depth)
    }

    private mutating func writeUserInfo(_ userInfo: [String: String], depth: Int) {
        guard !userInfo.isEmpty else { return }
        open("userInfo", [], depth: depth)
        for (key, value) in userInfo.sorted(by: { $0.key < $1.key }) {
            element("entry", [("key", key), ("value", value)], depth: depth + 1)
        }
        close("userInfo", depth: depth)
    }

    private func flag(_ value: Bool) -> String? { value ? "YES" : nil }

    /// A value in the form a model file writes it.
    static func text(_ value: AttributeValue) -> String? {
        switch value {
        case .integer16(let v): String(v)
        case .integer32(let v): String(v)
        case .integer64(let v): String(v)
        case .decimal(let v): "\(v)"
        case .double(let v): "\(v)"
        case .float(let v): "\(v)"
        case .string(let v): v
        case .boolean(let v): v ? "YES" : "NO"
        case .date(let v): "\(v.timeIntervalSinceReferenceDate)"
        case .uuid(let v): v.uuidString
        case .uri(let v): v.absoluteString
        case .binaryData, .transformable, .objectID, .externalDataReference: nil
        }
    }

    // MARK: XML

    private mutating func open(_ name: String, _ fields: [(String, String?)], depth: Int) {
        lines.append(indent(depth) + "<\(name)\(attributes(fields))>")
    }

    private mutating func element(_ name: String, _ fields: [(String, String?)], depth: Int) {
        lines.append(indent(depth) + "<\(name)\(attributes(fields))/>")
    }

    private mutating func close(_ name: String, depth: Int) {
        lines.append(indent(depth) + "</\(name)>")
    }

    private func indent(_ depth: Int) -> String { String(repeating: "    ", count: depth) }

    private func attributes(_ fields: [(String, String?)]) -> String {
        fields.compactMap { key, value in value.map { " \(key)=\"\(Self.escape($0))\"" } }.joined()
    }

    private static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "\n": escaped += "&#10;"
            case "\t": escaped += "&#9;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

extension ManagedObjectModel {
    /// The model as the `contents` of an Xcode `.xcdatamodel`: what Xcode would read, and what
    /// ``init(contentsOf:)`` reads back with the same version hashes.
    public func xcdatamodelContents() -> String {
        var writer = ModelFileWriter(model: self)
        return writer.write()
    }

    /// Writes the model as an Xcode `.xcdatamodel` folder at `url` (its `contents` file is
    /// replaced atomically).
    ///
    /// - Throws: ``ModelFileError`` with code `.unreadable` when the folder cannot be written.
    public func write(toModelAt url: URL) throws {
        let contents = url.appendingPathComponent("contents")
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data(xcdatamodelContents().utf8).write(to: contents, options: .atomic)
        } catch {
            throw ModelFileError(.unreadable, file: contents, "cannot write the model: \(error.localizedDescription)")
        }
    }
}
