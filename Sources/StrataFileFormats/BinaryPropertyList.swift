import Foundation

/// A reader of Apple's binary property lists (`bplist00`), with the keyed archiver's UIDs kept as
/// values: what Core Data's model cache is made of.
///
/// Foundation's `PropertyListSerialization` reads the format too, but hands a UID back as a
/// private class whose number cannot be read, so the archive's object graph could not be
/// followed. This reader is bounded in every way a damaged file could abuse: offsets and counts
/// are checked against the data, and objects are decoded on demand by index (a reference cycle
/// cannot recurse).
package struct BinaryPropertyList {
    /// One object of the list.
    package enum Value: Equatable {
        case null
        case bool(Bool)
        case integer(Int64)
        case real(Double)
        case date(Date)
        case data(Data)
        case string(String)
        /// A keyed archiver's reference to an object of `$objects`.
        case uid(Int)
        /// Arrays, sets and dictionaries hold object indexes, read with ``BinaryPropertyList/object(at:)``.
        case array([Int])
        case dictionary([(key: Int, value: Int)])

        package static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.null, .null): true
            case (.bool(let a), .bool(let b)): a == b
            case (.integer(let a), .integer(let b)): a == b
            case (.real(let a), .real(let b)): a == b
            case (.date(let a), .date(let b)): a == b
            case (.data(let a), .data(let b)): a == b
            case (.string(let a), .string(let b)): a == b
            case (.uid(let a), .uid(let b)): a == b
            case (.array(let a), .array(let b)): a == b
            case (.dictionary(let a), .dictionary(let b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
            default: false
            }
        }
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) {
            self.description = description
        }
    }

    private let bytes: [UInt8]
    private let offsets: [Int]
    private let referenceSize: Int
    /// The index of the top object.
    package let top: Int

    package init(_ data: Data) throws {
        bytes = [UInt8](data)
        guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist00".utf8)) else {
            throw Failure(description: "not a binary property list")
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        let count = Self.unsigned(bytes[(trailer + 8)..<(trailer + 16)])
        let topObject = Self.unsigned(bytes[(trailer + 16)..<(trailer + 24)])
        let tableOffset = Self.unsigned(bytes[(trailer + 24)..<(trailer + 32)])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), count > 0, topObject < count,
            tableOffset >= 8, tableOffset < UInt64(trailer), count <= UInt64(trailer - Int(tableOffset)) / UInt64(offsetSize)
        else {
            throw Failure(description: "the binary property list's trailer is damaged")
        }
        var offsets: [Int] = []
        offsets.reserveCapacity(Int(count))
        for index in 0..<Int(count) {
            let start = Int(tableOffset) + index * offsetSize
            let offset = Self.unsigned(bytes[start..<(start + offsetSize)])
            guard offset >= 8, offset < UInt64(tableOffset) else {
                throw Failure(description: "object \(index) of the binary property list lies outside it")
            }
            offsets.append(Int(offset))
        }
        self.offsets = offsets
        top = Int(topObject)
    }

    package var objectCount: Int { offsets.count }

    /// The object at `index`; containers hold the indexes of their elements.
    package func object(at index: Int) throws -> Value {
        guard offsets.indices.contains(index) else { throw Failure(description: "no object \(index) in the binary property list") }
        var position = offsets[index]
        let marker = try byte(at: position)
        position += 1
        let info = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return .null
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: throw Failure(description: "unknown marker 0x\(String(marker, radix: 16)) at byte \(position - 1)")
            }
        case 0x1:
            let size = 1 << info
            guard size <= 8 else {
                // 16-byte integers: Core Data's archives never need them; the low 8 bytes hold any Int64.
                guard size == 16 else { throw Failure(description: "an integer of \(size) bytes") }
                return .integer(Int64(bitPattern: Self.unsigned(try slice(position + 8, 8))))
            }
            let raw = Self.unsigned(try slice(position, size))
            // 8-byte integers are signed; shorter ones are unsigned.
            return .integer(size == 8 ? Int64(bitPattern: raw) : Int64(raw))
        case 0x2:
            switch info {
            case 2: return .real(Double(Float(bitPattern: UInt32(Self.unsigned(try slice(position, 4))))))
            case 3: return .real(Double(bitPattern: Self.unsigned(try slice(position, 8))))
            default: throw Failure(description: "a real of \(1 << info) bytes")
            }
        case 0x3:
            guard info == 3 else { throw Failure(description: "a date marker 0x\(String(marker, radix: 16))") }
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: Self.unsigned(try slice(position, 8)))))
        case 0x4:
            let (length, start) = try count(info, at: position)
            return .data(Data(try slice(start, length)))
        case 0x5:
            let (length, start) = try count(info, at: position)
            guard let text = String(bytes: try slice(start, length), encoding: .ascii) else {
                throw Failure(description: "an ASCII string that is not ASCII")
            }
            return .string(text)
        case 0x6:
            let (length, start) = try count(info, at: position)
            let raw = try slice(start, length * 2)
            var units: [UInt16] = []
            units.reserveCapacity(length)
            var at = raw.startIndex
            while at < raw.endIndex {
                units.append(UInt16(raw[at]) << 8 | UInt16(raw[at + 1]))
                at += 2
            }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            // Clamped: a damaged UID names no object, and the archive reader says so.
            return .uid(Int(clamping: Self.unsigned(try slice(position, info + 1))))
        case 0xA, 0xC:
            let (length, start) = try count(info, at: position)
            return .array(try references(start, length))
        case 0xD:
            let (length, start) = try count(info, at: position)
            let keys = try references(start, length)
            let values = try references(start + length * referenceSize, length)
            return .dictionary(zip(keys, values).map { (key: $0, value: $1) })
        default:
            throw Failure(description: "unknown marker 0x\(String(marker, radix: 16)) at byte \(position - 1)")
        }
    }

    /// A container's length: in the marker's low nibble, or (0xF) in the integer that follows.
    private func count(_ info: Int, at position: Int) throws -> (Int, Int) {
        guard info == 0xF else { return (info, position) }
        let marker = try byte(at: position)
        guard marker >> 4 == 0x1, marker & 0x0F <= 3 else { throw Failure(description: "a malformed length at byte \(position)") }
        let size = 1 << Int(marker & 0x0F)
        let length = Self.unsigned(try slice(position + 1, size))
        guard length <= UInt64(bytes.count) else { throw Failure(description: "a length of \(length) in a list of \(bytes.count) bytes") }
        return (Int(length), position + 1 + size)
    }

    private func references(_ start: Int, _ count: Int) throws -> [Int] {
        let raw = try slice(start, count * referenceSize)
        return stride(from: raw.startIndex, to: raw.endIndex, by: referenceSize).map {
            Int(clamping: Self.unsigned(raw[$0..<($0 + referenceSize)]))
        }
    }

    private func byte(at position: Int) throws -> UInt8 {
        guard bytes.indices.contains(position) else { throw Failure(description: "the binary property list ends early") }
        return bytes[position]
    }

    private func slice(_ start: Int, _ length: Int) throws -> ArraySlice<UInt8> {
        guard length >= 0, start >= 0, start <= bytes.count, length <= bytes.count - start else {
            throw Failure(description: "the binary property list ends early")
        }
        return bytes[start..<(start + length)]
    }

    /// A big-endian unsigned integer of up to 8 bytes.
    private static func unsigned(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
