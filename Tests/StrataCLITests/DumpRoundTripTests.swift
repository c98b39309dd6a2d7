import Foundation
import Testing

/// What `strata dump` writes reads back exactly (issue 28, class 7): dump → import → dump gives the
/// same lines on every store type the tool writes, dates to the last bit of their `Double`,
/// decimals and doubles exact, transformable values as their bytes; `--entity` dumps subentities
/// as a fetch finds them; a model given for an older store is matched by version or refused
/// before anything is printed.
@Suite struct DumpRoundTripTests {
    static let model = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" systemVersion="22G120" minimumToolsVersion="Automatic" sourceLanguage="Swift" userDefinedModelVersionIdentifier="">
            <entity name="Reading" representedClassName="Reading" syncable="YES">
                <attribute name="at" optional="YES" attributeType="Date" usesScalarValueType="NO"/>
                <attribute name="amount" optional="YES" attributeType="Decimal"/>
                <attribute name="ratio" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
                <attribute name="weight" optional="YES" attributeType="Float" usesScalarValueType="YES"/>
                <attribute name="count" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
                <attribute name="small" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
                <attribute name="flag" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                <attribute name="label" optional="YES" attributeType="String"/>
                <attribute name="bytes" optional="YES" attributeType="Binary"/>
                <attribute name="identifier" optional="YES" attributeType="UUID" usesScalarValueType="NO"/>
                <attribute name="link" optional="YES" attributeType="URI"/>
                <attribute name="tags" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData"/>
            </entity>
            <entity name="Sample" representedClassName="Sample" parentEntity="Reading" syncable="YES">
                <attribute name="depth" optional="YES" attributeType="Double" usesScalarValueType="YES"/>
            </entity>
        </model>
        """

    static let objects = """
        {"entity": "Reading", "id": "r1", "values": {"at": "2016-07-14T11:50:19.123456789Z", "amount": "12345678901234567890.123456789", "ratio": 0.1, "weight": 1.1, "count": -9223372036854775808, "small": 32767, "flag": true, "label": "naïve ☕️\\n\\u0000", "bytes": "AAEC/w==", "identifier": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", "link": "https://example.com/a?b=c", "tags": ["a", "b"]}}
        {"entity": "Reading", "id": "r2", "values": {"at": "1969-07-20T20:17:40.000001Z", "ratio": 1e-300, "weight": 3.4028235e38, "amount": "-0.000000000000000000000000001"}}
        {"entity": "Sample", "id": "s1", "values": {"at": "2001-01-01T00:00:00.5Z", "depth": 12.75, "label": "below"}}
        """

    /// - Parameter withNUL: Whether a string holds a NUL character (PostgreSQL's text cannot).
    static func files(withNUL: Bool = true) throws -> (directory: URL, model: String, objects: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-dump-\(UUID().uuidString)")
        let model = directory.appendingPathComponent("Readings.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Data(Self.model.utf8).write(to: model.appendingPathComponent("contents"))
        let objects = directory.appendingPathComponent("readings.jsonl")
        try Data((withNUL ? Self.objects : Self.objects.replacingOccurrences(of: "\\u0000", with: "")).utf8).write(to: objects)
        return (directory, model.path, objects.path)
    }

    /// Dump lines without their IDs (each store numbers its objects itself; these have no
    /// relationships), in order.
    static func comparable(_ dump: String) -> [String] {
        dump.split(separator: "\n").map { line in
            line.replacingOccurrences(of: #""id":"[^"]*","#, with: "", options: .regularExpression)
        }.sorted()
    }

    static var stores: [String] {
        ["store", "sqlite"] + (ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] != nil ? ["postgres"] : [])
    }

    static func newStore(_ kind: String, in directory: URL, _ name: String) throws -> String {
        guard kind == "postgres" else { return directory.appendingPathComponent("\(name).\(kind)").path }
        return try PostgresCommandsTests.newStore()
    }

    @Test(arguments: stores)
    func dumpThenImportThenDumpIsIdentical(_ kind: String) async throws {
        let (directory, model, objects) = try Self.files(withNUL: kind != "postgres")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try Self.newStore(kind, in: directory, "first")
        let imported = try await StrataTool.run("import", first, "--model", model, "--from", objects)
        #expect(imported.status == 0, "\(imported.errors)")
        let dump = try await StrataTool.run("dump", first)
        #expect(dump.status == 0, "\(dump.errors)")
        #expect(dump.output.split(separator: "\n").count == 3)
        // The dates as given, to the last bit their Double keeps (the double nearest .123456789
        // is written .1234568, the shortest decimal that is that double).
        #expect(dump.output.contains(#""at":"2016-07-14T11:50:19.1234568Z""#), "\(dump.output)")
        #expect(dump.output.contains(#""at":"1969-07-20T20:17:40.000001Z""#), "\(dump.output)")
        // A decimal keeps every digit in the binary store; in Core Data's SQLite format it is a
        // REAL (§8), and the PostgreSQL store keeps that layout (a double precision column).
        #expect(
            dump.output.contains(kind == "store" ? #""amount":"12345678901234567890.123456789""# : #""amount":"12345678901234567000""#),
            "\(dump.output)")
        // A transformable value imported as JSON is archived by the attribute's transformer.
        #expect(dump.output.contains(#""tags":"YnBsaXN0MDDU"#), "\(dump.output)")

        let again = directory.appendingPathComponent("again.jsonl")
        try Data(dump.output.utf8).write(to: again)
        let second = try Self.newStore(kind, in: directory, "second")
        let reimported = try await StrataTool.run("import", second, "--model", model, "--from", again.path)
        #expect(reimported.status == 0, "\(reimported.errors)")
        let redump = try await StrataTool.run("dump", second)
        #expect(Self.comparable(redump.output) == Self.comparable(dump.output))
    }

    /// `dump --entity Reading` writes Samples too, as `query --entity Reading` (and Core Data's
    /// fetches) find them; `--entity-only` writes the entity's own objects.
    @Test func anEntitysDumpIncludesItsSubentities() async throws {
        let (directory, model, objects) = try Self.files()
        defer { try? FileManager.default.removeItem(at: directory) }
        for kind in ["store", "sqlite"] {
            let store = try Self.newStore(kind, in: directory, "entities")
            #expect(try await StrataTool.run("import", store, "--model", model, "--from", objects).status == 0)
            let all = try await StrataTool.run("dump", store, "--entity", "Reading")
            #expect(all.output.split(separator: "\n").count == 3, "\(kind): \(all.output)")
            let own = try await StrataTool.run("dump", store, "--entity", "Reading", "--entity-only")
            #expect(own.output.split(separator: "\n").count == 2, "\(kind): \(own.output)")
            #expect(!own.output.contains(#""entity":"Sample""#))
        }
    }

    /// A store at an older version, dumped with the bundle: read with the version that wrote it.
    /// With one model that did not write it: refused before anything is printed.
    @Test func aModelGivenForAnOlderStoreIsMatchedOrRefusedBeforePrinting() async throws {
        let (directory, model, objects) = try Self.files()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("old.sqlite").path
        #expect(try await StrataTool.run("import", store, "--model", model, "--from", objects).status == 0)
        // A bundle whose current version adds an entity: the store is at its first version.
        let bundle = directory.appendingPathComponent("Readings.xcdatamodeld")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: model, toPath: bundle.appendingPathComponent("Readings.xcdatamodel").path)
        let v2 = bundle.appendingPathComponent("Readings 2.xcdatamodel")
        try FileManager.default.createDirectory(at: v2, withIntermediateDirectories: true)
        let later = Self.model.replacingOccurrences(
            of: "</model>", with: #"<entity name="Station" representedClassName="Station" syncable="YES"><attribute name="name" optional="YES" attributeType="String"/></entity></model>"#)
        try Data(later.utf8).write(to: v2.appendingPathComponent("contents"))
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Readings 2.xcdatamodel</string></dict></plist>
            """.utf8).write(to: bundle.appendingPathComponent(".xccurrentversion"))

        let dump = try await StrataTool.run("dump", store, "--model", bundle.path)
        #expect(dump.status == 0, "\(dump.errors)")
        #expect(dump.output.split(separator: "\n").count == 3)

        let refused = try await StrataTool.run("dump", store, "--model", v2.path)
        #expect(refused.status != 0)
        #expect(refused.output.isEmpty, "nothing printed before refusing")
        #expect(refused.errors.contains("did not write this store"), "\(refused.errors)")

        // verify says the model given did not write the store, not that none was given.
        let verify = try await StrataTool.run("verify", store, "--model", v2.path)
        #expect(verify.status == 1)
        #expect(verify.output.contains("the store does not match the model"), "\(verify.output)")
        #expect(!verify.output.contains("none was given"), "\(verify.output)")
    }
}
