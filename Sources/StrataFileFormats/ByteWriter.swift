import Foundation

/// Appends the binary store's primitives to a byte buffer: LEB128 varints (zigzag for signed
/// numbers), little-endian fixed-width numbers, length-prefixed strings and bytes.
package struct ByteWriter {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    package var count: Int { bytes.count }

    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    package mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    package mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    package mutating func varint(_ value: Int) {
        varint(UInt64(value))
    }

    package mutating func signed(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    package mutating func fixed<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func double(_ value: Double) {
        fixed(value.bitPattern)
    }

    package mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            varint(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    package mutating func data(_ value: Data) {
        varint(value.count)
        bytes.append(contentsOf: value)
    }

    package mutating func raw(_ value: some Sequence<UInt8>) {
        bytes.append(contentsOf: value)
    }
}
