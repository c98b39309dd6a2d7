import Foundation

/// Reads what ``ByteWriter`` writes, checking every length against what is left, so that a
/// damaged buffer gives an error, never a crash or an allocation beyond the buffer's size.
package struct ByteReader {
    /// Why bytes could not be read, and at which offset of the buffer.
    package struct Failure: Error {
        package let offset: Int
        package let message: String
    }

    private let bytes: [UInt8]
    package private(set) var offset = 0

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    package var remaining: Int { bytes.count - offset }
    package var isAtEnd: Bool { offset == bytes.count }

    package func fail(_ message: String) -> Failure {
        Failure(offset: offset, message: message)
    }

    package mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw fail("unexpected end of data") }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Reads the next byte if it is `value`; `false`, reading nothing, if not (or at the end).
    package mutating func skip(ifNext value: UInt8) -> Bool {
        guard offset < bytes.count, bytes[offset] == value else { return false }
        offset += 1
        return true
    }

    package mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try byte()
            guard shift < 64, shift < 63 || byte <= 1 else { throw fail("a number is too long") }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
    }

    /// A varint that counts something held in what is left: at most `remaining / minimumSize`.
    package mutating func count(minimumSize: Int = 1) throws -> Int {
        let value = try varint()
        guard value <= UInt64(remaining / max(minimumSize, 1)) else {
            throw fail("a count of \(value) is larger than the data that is left")
        }
        return Int(value)
    }

    package mutating func signed() throws -> Int64 {
        let value = try varint()
        return Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
    }

    package mutating func fixed<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let size = MemoryLayout<T>.size
        guard remaining >= size else { throw fail("unexpected end of data") }
        var value = T.zero
        for index in 0..<size {
            value |= T(truncatingIfNeeded: bytes[offset + index]) << (8 * index)
        }
        offset += size
        return value
    }

    package mutating func double() throws -> Double {
        Double(bitPattern: try fixed(UInt64.self))
    }

    package mutating func rawBytes(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw fail("unexpected end of data") }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    package mutating func string() throws -> String {
        let slice = try rawBytes(try count())
        guard let string = String(validating: slice, as: UTF8.self) else { throw fail("a string is not valid UTF-8") }
        return string
    }

    package mutating func data() throws -> Data {
        Data(try rawBytes(try count()))
    }
}
