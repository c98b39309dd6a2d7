import Foundation
@testable import Strata
import StrataTestSupport
import Testing

/// Core Data's archived `NSExpression`s, as Xcode writes value expressions into mapping models
/// (issue 29, §2), and the errors a damaged mapping model file gives.
@Suite struct ArchivedExpressionTests {
    /// Expressions of every kind Strata archives, generated: constants of each type, variables,
    /// key paths with collection operators, built-in functions, `FUNCTION` on values and
    /// variables, aggregates. Each reads back as written.
    @Test func generatedExpressionsReadBackAsWritten() throws {
        var random = SplitMix64(seed: 29)
        for _ in 0..<500 {
            let expression = Self.expression(depth: 0, using: &random)
            let read = try ValueExpression(keyedArchive: try expression.keyedArchive())
            #expect(read == expression, "\(expression)")
        }
    }

    /// Arithmetic is archived as Core Data archives it, as built-in functions (`add:to:`), and
    /// evaluates to the same value.
    @Test func arithmeticIsArchivedAsCoreDataFunctions() throws {
        let expression = try ValueExpression(format: "($source.price * 2) - -1")
        #expect(try ValueExpression(keyedArchive: try ValueExpression.unary("-", .key(.variable("source"), "price")).keyedArchive()).description
            == "from:subtract:(0, $source.price)")
        let read = try ValueExpression(keyedArchive: try expression.keyedArchive())
        #expect(read.description == "from:subtract:(multiply:by:($source.price, 2), -1)")
        let object = MigrationObject(objectID: .make(store: "S", entity: "Item", reference: 1), attributeValues: ["price": .integer64(20)])
        let session = MigrationSession(
            source: try ManagedObjectModel {}, destination: try ManagedObjectModel {}, mapping: MappingModel(entityMappings: []), storeIdentifier: "S",
            nextReferences: [:])
        let mapping = EntityMapping(kind: .transform, source: "Item", destination: "Item")
        #expect(try ExpressionValue.evaluate(read, on: object, mapping: mapping, in: session) == .integer64(41))
        #expect(try ExpressionValue.evaluate(expression, on: object, mapping: mapping, in: session) == .integer64(41))
    }

    /// What Strata writes is a keyed archive Python's `plistlib` reads, with the classes and
    /// fields of the archives Xcode wrote (`fixtures/compiled`: `NSKeyPathExpression` over an
    /// `NSVariableExpression`, `NSKeyPathSpecifierExpression` in `NSArguments`).
    @Test(.enabled(if: Fixtures.hasPython3, "python3 is not here"))
    func anIndependentReaderSeesXcodesLayout() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("expression.archive")
        try ValueExpression(format: "$source.companyName").keyedArchive().write(to: file)
        let script = """
            import plistlib, sys, json
            a = plistlib.load(open(sys.argv[1], 'rb')); o = a['$objects']
            cls = lambda x: o[x['$class'].data]['$classes']
            root = o[a['$top']['root'].data]
            operand = o[root['NSOperand'].data]; spec = o[o[root['NSArguments'].data]['NS.objects'][0].data]
            print(json.dumps([a['$archiver'], cls(root), o[root['NSSelectorName'].data], root['NSExpressionType'],
                cls(operand)[0], o[operand['NSVariable'].data], cls(spec)[0], o[spec['NSKeyPath'].data], spec['NSExpressionType']]))
            """
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, file.path])
        let fields = try #require(try JSONSerialization.jsonObject(with: result.output) as? [Any])
        #expect(fields.map { "\($0)" } == [
            "NSKeyedArchiver", #"["NSKeyPathExpression", "NSFunctionExpression", "NSExpression", "NSObject"]"#, "valueForKeyPath:", "4",
            "NSVariableExpression", "source", "NSKeyPathSpecifierExpression", "companyName", "10",
        ])
    }

    /// Every archived expression in the fixtures' Xcode mapping models reads, and reads the same
    /// once Strata archives it again.
    @Test(.enabled(if: Fixtures.hasSharedCompiledModels, "the shared compiled fixtures are not here"))
    func everyRealExpressionReadsAndRoundTrips() throws {
        var count = 0
        for case let url as URL in FileManager.default.enumerator(at: Fixtures.sharedCompiledModels, includingPropertiesForKeys: nil)!
        where url.lastPathComponent == "xcmapping.xml" {
            let document = try CoreDataXMLDocument(contentsOf: url)
            for object in document.objects {
                guard let text = object[attribute: "valueexpressiondata"] else { continue }
                let data = try #require(Data(base64Encoded: text, options: .ignoreUnknownCharacters))
                let expression = try ValueExpression(keyedArchive: data)
                #expect(try ValueExpression(keyedArchive: try expression.keyedArchive()) == expression)
                count += 1
            }
        }
        #expect(count == 10)
    }

    /// Damaged mapping model files give typed errors naming the file and what is wrong.
    @Test func damagedMappingModelsAreTypedErrors() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func xml(_ objects: String) -> Data {
            Data(
                """
                <?xml version="1.0" standalone="no"?>
                <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">
                <database><databaseInfo><version>134481920</version></databaseInfo>
                \(objects)
                </database>
                """.utf8)
        }
        let file = directory.appendingPathComponent("xcmapping.xml")
        let cases: [(Data, ModelFileError.Code, String)] = [
            (xml(#"<object type="XDDEVMAPPINGMODEL" id="z1"></object><object type="NOTE" id="z2"></object>"#), .notAModel, "z2 is a NOTE"),
            (xml(#"<object type="XDDEVENTITYMAPPING" id="z1"></object>"#), .notAModel, "has 0"),
            (xml(#"<object type="XDDEVMAPPINGMODEL" id="z1"><relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="z9"></relationship></object>"#), .invalidValue, "z9"),
            (xml(#"<object type="XDDEVMAPPINGMODEL" id="z1"><relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="z2"></relationship></object><object type="XDDEVENTITYMAPPING" id="z2"><attribute name="sourcename" type="string">A</attribute><relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="z3"></relationship></object><object type="XDDEVATTRIBUTEMAPPING" id="z3"><attribute name="name" type="string">x</attribute><attribute name="valueexpressiondata" type="binary">AAAA</attribute></object>"#), .invalidValue, "A.x: the value expression cannot be read"),
        ]
        for (data, code, words) in cases {
            try data.write(to: file)
            let error = try #require(throws: ModelFileError.self) { try CoreDataMappingFile(contentsOf: file) }
            #expect(error.code == code && error.description.contains(words) && error.file == file.path, "\(error.code) \(error)")
        }
        let cdm = directory.appendingPathComponent("Broken.cdm")
        try Data("bplist00 not really".utf8).write(to: cdm)
        let error = try #require(throws: ModelFileError.self) { try CoreDataMappingFile(contentsOf: cdm) }
        #expect(error.code == .notAModel && error.file == cdm.path)
        try ValueExpression(format: "1").keyedArchive().write(to: cdm)
        #expect(throws: ModelFileError.self) { try CoreDataMappingFile(contentsOf: cdm) }
    }

    // MARK: Generating expressions

    static func expression(depth: Int, using random: inout SplitMix64) -> ValueExpression {
        let leaf = depth > 2 || Int.random(in: 0..<3, using: &random) == 0
        if leaf {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return .constant(constant(using: &random))
            case 1: return .variable(["source", "manager", "entityPolicy"][Int.random(in: 0..<3, using: &random)])
            case 2: return .evaluatedObject
            default: return ArchivedExpression.keyPath(path(using: &random), on: .variable("source"))
            }
        }
        let arguments = (0..<Int.random(in: 0...2, using: &random)).map { _ in expression(depth: depth + 1, using: &random) }
        switch Int.random(in: 0..<4, using: &random) {
        case 0: return .function(["now", "sum:", "uppercase:", "add:to:"][Int.random(in: 0..<4, using: &random)], arguments)
        case 1: return .function("FUNCTION:selector\(Int.random(in: 0..<9, using: &random)):", [expression(depth: depth + 1, using: &random)] + arguments)
        case 2: return .aggregate(arguments)
        default:
            // A key path's base is no key path itself: the archive keeps one path per base.
            var base = expression(depth: depth + 1, using: &random)
            if case .key = base { base = .variable("source") }
            if case .collectionOperator = base { base = .variable("source") }
            return ArchivedExpression.keyPath(path(using: &random), on: base)
        }
    }

    static func path(using random: inout SplitMix64) -> String {
        let keys = ["name", "items", "price", "owner"]
        var parts = (0..<Int.random(in: 1...3, using: &random)).map { _ in keys[Int.random(in: 0..<keys.count, using: &random)] }
        if Bool.random(using: &random) { parts.insert("@" + ["count", "sum", "max"][Int.random(in: 0..<3, using: &random)], at: parts.count - 1) }
        return parts.joined(separator: ".")
    }

    static func constant(using random: inout SplitMix64) -> PredicateValue {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: .string(["", "Unknown", "é ✓", "a\"b"][Int.random(in: 0..<4, using: &random)])
        case 1: .integer(Int64.random(in: -1_000_000...1_000_000, using: &random))
        case 2: .double(Double(Int.random(in: -1000...1000, using: &random)) / 8)
        case 3: .bool(Bool.random(using: &random))
        case 4: .date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...1_000_000_000, using: &random))))
        case 5: .data(Data((0..<Int.random(in: 0...8, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))
        case 6: .null
        default: .collection([.integer(1), .string("x")])
        }
    }
}
