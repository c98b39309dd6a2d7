import Foundation
import StrataFileFormats
@testable import Strata
import StrataTestSupport
import Testing

/// Core Data's default transformer stores a transformable value as an `NSKeyedArchiver` archive
/// (issue 28: `$archiver`, `$top.root`, `$objects` with `$null` first, `NS.objects`/`NS.keys`,
/// `$classname`/`$classes`). Strata's archives are read back by an independent reader (Python's
/// `plistlib`, `Tests/Scripts/keyed-archive.py`), and archives that reader writes in another
/// object order are read by Strata.
@Suite(.enabled(if: Fixtures.hasPython3, "python3 is not here"))
struct KeyedArchiveTests {
    static let script = Fixtures.packageRoot.appendingPathComponent("Tests/Scripts/keyed-archive.py")

    static let everyKind: ArchivedValue = .dictionary([
        .string("tags"): .array([.string("swift"), .string("naïve ☕️"), .string("swift")]),
        .string("count"): .integer(-42), .string("big"): .integer(Int64.max), .string("ratio"): .double(0.1),
        .string("flag"): .boolean(true), .string("price"): .decimal(Decimal(string: "-1234.5678")!),
        .string("bytes"): .data(Data([0, 1, 2, 255])), .string("when"): .date(Date(timeIntervalSinceReferenceDate: 737_057_646.84)),
        .string("link"): .url(URL(string: "https://example.com/a?b=c")!), .string("id"): .uuid(UUID(uuidString: "0F9619FF-8B86-D011-B42D-00C04FC964FF")!),
        .string("nothing"): .null, .string("unique"): .set([.integer(1), .string("one")]),
        .string("steps"): .orderedSet([.string("b"), .string("a")]),
        .string("nested"): .array([.dictionary([.integer(7): .array([])]), .dictionary([:])]),
    ])

    @Test func strataWritesFoundationsLayoutAnIndependentReaderReads() async throws {
        let archive = try Self.everyKind.keyedArchive()
        let decoded = try await Self.pythonDecode(archive)
        #expect(try ArchivedValue(tagged: decoded["value"] as Any) == Self.everyKind)
        let layout = try #require(decoded["layout"] as? [String: Any])
        #expect(layout["archiver"] as? String == "NSKeyedArchiver")
        #expect(layout["version"] as? Int == 100_000)
        #expect(layout["first"] as? String == "$null")
        #expect(layout["root"] as? Int == 1)
        #expect(layout["classes"] as? [String] == [
            "NSArray", "NSDate", "NSDecimalNumber", "NSDictionary", "NSNull", "NSOrderedSet", "NSSet", "NSURL", "NSUUID",
        ])
        let chains = try #require(layout["chains"] as? [String: [String]])
        #expect(chains["NSArray"] == ["NSArray", "NSObject"] && chains["NSDictionary"] == ["NSDictionary", "NSObject"])
        #expect(layout["fields"] as? [String] == [
            "$class", "NS.base", "NS.compact", "NS.exponent", "NS.keys", "NS.length", "NS.mantissa", "NS.mantissa.bo", "NS.negative",
            "NS.objects", "NS.relative", "NS.time", "NS.uuidbytes",
        ])
    }

    /// An archive of a list of strings is exactly what Foundation writes for `["a", "b", "a"]`:
    /// the array, its strings once each, then its class.
    @Test func aListOfStringsIsArchivedObjectForObjectAsFoundationDoes() throws {
        let archive = try ArchivedValue.array([.string("a"), .string("b"), .string("a")]).keyedArchive()
        let list = try BinaryPropertyList(archive)
        let keyed = try KeyedArchive(list)
        #expect(keyed.top == ["root": 1])
        #expect(try keyed.raw(0) == .string("$null"))
        #expect(try keyed.uids(keyed.object(1)?["NS.objects"]) == [2, 3, 2])
        #expect(try keyed.raw(2) == .string("a") && keyed.raw(3) == .string("b"))
        #expect(try keyed.object(1)?.className == "NSArray")
    }

    @Test func archivesAnotherWriterLaysOutOtherwiseRead() async throws {
        let archive = try await Self.pythonEncode(Self.everyKind.tagged)
        #expect(try ArchivedValue(keyedArchive: archive) == Self.everyKind)
    }

    /// Generated values of every kind, nested: Strata's archive reads back to the same value with
    /// Strata and with the independent reader; the independent writer's archive reads with Strata.
    @Test func generatedValuesRoundTripBothWays() async throws {
        var random = SplitMix64(seed: 0xA4C1_1FE5)
        for round in 0..<150 {
            let value = Self.randomValue(&random, depth: 0)
            let archive = try value.keyedArchive()
            #expect(try ArchivedValue(keyedArchive: archive) == value, "round \(round)")
            #expect(try value.keyedArchive() == archive, "round \(round): equal values give equal bytes")
            if round % 5 == 0 {
                let decoded = try await Self.pythonDecode(archive)
                let encoded = try await Self.pythonEncode(value.tagged)
                #expect(try ArchivedValue(tagged: decoded["value"] as Any) == value, "round \(round)")
                #expect(try ArchivedValue(keyedArchive: encoded) == value, "round \(round)")
            }
        }
    }

    @Test func anArchiveOfAnotherClassIsATypedErrorNamingIt() throws {
        let archive = BinaryPropertyListWriter.data(
            .dictionary([
                "$version": .integer(100_000), "$archiver": .string("NSKeyedArchiver"), "$top": .dictionary(["root": .uid(1)]),
                "$objects": .array([
                    .string("$null"),
                    .dictionary(["UIRed": .real(1), "$class": .uid(2)]),
                    .dictionary(["$classname": .string("UIColor"), "$classes": .array([.string("UIColor"), .string("NSObject")])]),
                ]),
            ]))
        let error = #expect(throws: TransformableValueError.self) { try ArchivedValue(keyedArchive: archive) }
        #expect(error?.code == .unknownClass && error?.className == "UIColor")
        #expect(error?.message.hasPrefix("the archive holds an object of class UIColor, which Strata cannot decode") == true)
    }

    @Test func damagedArchivesAreTypedErrors() throws {
        // An array that holds itself.
        let cycle = BinaryPropertyListWriter.data(
            .dictionary([
                "$archiver": .string("NSKeyedArchiver"), "$top": .dictionary(["root": .uid(1)]),
                "$objects": .array([
                    .string("$null"), .dictionary(["NS.objects": .array([.uid(1)]), "$class": .uid(2)]),
                    .dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray")])]),
                ]),
            ]))
        #expect(throws: TransformableValueError.self) { try ArchivedValue(keyedArchive: cycle) }
        #expect(throws: TransformableValueError.self) { try ArchivedValue(keyedArchive: Data("[\"json\"]".utf8)) }
        // Every cut and many flipped bytes of a real archive: a value or a typed error, never a crash.
        let archive = try Self.everyKind.keyedArchive()
        for length in 0..<archive.count {
            _ = try? ArchivedValue(keyedArchive: archive.prefix(length))
        }
        var random = SplitMix64(seed: 0xF11B)
        for _ in 0..<2_000 {
            var damaged = [UInt8](archive)
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            do {
                _ = try ArchivedValue(keyedArchive: Data(damaged))
            } catch is TransformableValueError {
            } catch {
                Issue.record("an untyped error: \(error)")
            }
        }
    }

    // MARK: Helpers

    static func randomValue(_ random: inout SplitMix64, depth: Int) -> ArchivedValue {
        let kinds = depth > 3 ? 10 : 14
        let bits = random.next()
        switch Int.random(in: 0..<kinds, using: &random) {
        case 0: return .string(["", "a", "naïve", "☕️ emoji", "line\nbreak", String(bits, radix: 36)][Int(bits % 6)])
        case 1: return .integer(Int64(bitPattern: bits) >> Int64(bits % 63))
        case 2: return .double(Double(Int64(bitPattern: bits) % 1_000_000) / 64)
        case 3: return .boolean(bits & 1 == 0)
        case 4: return .data(Data((0..<Int(bits % 20)).map { UInt8(truncatingIfNeeded: bits >> UInt64($0 % 56)) }))
        case 5: return .date(Date(timeIntervalSinceReferenceDate: Double(Int32(truncatingIfNeeded: bits)) / 8))
        case 6: return .url(URL(string: "https://example.com/\(bits % 1000)?q=\(bits % 7)")!)
        case 7: return .uuid(UUID(uuid: withUnsafeBytes(of: (bits, bits &* 131)) { $0.load(as: uuid_t.self) }))
        case 8: return .null
        case 9: return .decimal(Decimal(sign: bits & 2 == 0 ? .plus : .minus, exponent: Int(bits % 12) - 6, significand: Decimal(bits % 10_000_000_000_000)))
        case 10: return .array((0..<Int(bits % 4)).map { _ in randomValue(&random, depth: depth + 1) })
        case 11: return .orderedSet((0..<Int(bits % 3)).map { _ in .string("item \(random.next() % 100)") })
        case 12: return .set(Set((0..<Int(bits % 4)).map { _ in .integer(Int64(random.next() % 50)) }))
        default:
            return .dictionary(Dictionary(
                (0..<Int(bits % 4)).map { _ in (.string("key \(random.next() % 20)"), randomValue(&random, depth: depth + 1)) },
                uniquingKeysWith: { a, _ in a }))
        }
    }

    static func pythonDecode(_ archive: Data) async throws -> [String: Any] {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("archive.plist")
        try archive.write(to: file)
        let result = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path, "decode", file.path])
        guard result.status == 0 else { throw TransformableValueError(.malformedArchive, String(decoding: result.errors, as: UTF8.self)) }
        return try JSONSerialization.jsonObject(with: result.output) as? [String: Any] ?? [:]
    }

    static func pythonEncode(_ tagged: Any) async throws -> Data {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("archive.plist")
        let input = directory.appendingPathComponent("value.json")
        try JSONSerialization.data(withJSONObject: tagged).write(to: input)
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "python3 \"$0\" encode \"$1\" < \"$2\"", script.path, file.path, input.path])
        guard result.status == 0 else { throw TransformableValueError(.malformedArchive, String(decoding: result.errors, as: UTF8.self)) }
        return try Data(contentsOf: file)
    }
}

/// The tagged JSON `keyed-archive.py` speaks.
extension ArchivedValue {
    var tagged: Any {
        switch self {
        case .string(let v): ["string": v]
        case .integer(let v): ["integer": v]
        case .double(let v): ["double": v]
        case .boolean(let v): ["boolean": v]
        case .decimal(let v): ["decimal": "\(v)"]
        case .data(let v): ["data": v.base64EncodedString()]
        case .date(let v): ["date": v.timeIntervalSinceReferenceDate]
        case .url(let v): ["url": v.absoluteString]
        case .uuid(let v): ["uuid": v.uuidString]
        case .null: ["null": true]
        case .array(let items): ["array": items.map(\.tagged)]
        case .orderedSet(let items): ["orderedSet": items.map(\.tagged)]
        case .set(let items): ["set": items.map(\.tagged)]
        case .dictionary(let entries): ["dictionary": entries.map { [$0.key.tagged, $0.value.tagged] }]
        }
    }

    init(tagged: Any) throws {
        guard let node = tagged as? [String: Any], node.count == 1, let (kind, value) = node.first else {
            throw TransformableValueError(.malformedArchive, "not tagged: \(tagged)")
        }
        func items() throws -> [ArchivedValue] { try (value as? [Any] ?? []).map(ArchivedValue.init(tagged:)) }
        switch kind {
        case "string": self = .string(value as? String ?? "")
        case "integer": self = .integer((value as? NSNumber)?.int64Value ?? 0)
        case "double": self = .double((value as? NSNumber)?.doubleValue ?? .nan)
        case "boolean": self = .boolean(value as? Bool ?? false)
        case "decimal": self = .decimal(Decimal(string: value as? String ?? "", locale: Locale(identifier: "en_US_POSIX")) ?? .nan)
        case "data": self = .data(Data(base64Encoded: value as? String ?? "") ?? Data())
        case "date": self = .date(Date(timeIntervalSinceReferenceDate: (value as? NSNumber)?.doubleValue ?? .nan))
        case "url": self = .url(URL(string: value as? String ?? "")!)
        case "uuid": self = .uuid(UUID(uuidString: value as? String ?? "")!)
        case "null": self = .null
        case "array": self = .array(try items())
        case "orderedSet": self = .orderedSet(try items())
        case "set": self = .set(Set(try items()))
        case "dictionary":
            let pairs = try (value as? [[Any]] ?? []).map { (try ArchivedValue(tagged: $0[0]), try ArchivedValue(tagged: $0[1])) }
            self = .dictionary(Dictionary(pairs, uniquingKeysWith: { _, last in last }))
        default: throw TransformableValueError(.malformedArchive, "unknown tag \(kind)")
        }
    }
}
