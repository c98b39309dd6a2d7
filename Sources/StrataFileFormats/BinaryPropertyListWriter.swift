import Foundation

/// A property list to write in Apple's binary format, with the keyed archiver's UIDs (which
/// `PropertyListSerialization` cannot write from Swift values).
package indirect enum PropertyListNode: Hashable {
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case date(Date)
    case data(Data)
    case string(String)
    case uid(Int)
    case array([PropertyListNode])
    /// Keys and values in the order written.
    case dictionary(keys: [PropertyListNode], values: [PropertyListNode])

    package static func dictionary(_ entries: KeyValuePairs<String, PropertyListNode>) -> PropertyListNode {
        .dictionary(keys: entries.map { .string($0.key) }, values: entries.map(\.value))
    }
}

/// Writes a ``PropertyListNode`` as a binary property list (`bplist00`), the format
/// ``BinaryPropertyList`` reads: objects written once each (equal scalars share one), the top
/// object first, references and offsets as narrow as the list allows, the 32-byte trailer.
package enum BinaryPropertyListWriter {
    private enum Object {
        case scalar(PropertyListNode)
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    package static func data(_ root: PropertyListNode) -> Data {
        var objects: [Object] = []
        var scalars: [PropertyListNode: Int] = [:]
        func add(_ node: PropertyListNode) -> Int {
            switch node {
            case .array(let items):
                let index = objects.count
                objects.append(.array([]))
                let references = items.map(add)
                objects[index] = .array(references)
                return index
            case .dictionary(let keys, let values):
                let index = objects.count
                objects.append(.array([]))
                let keyReferences = keys.map(add)
                objects[index] = .dictionary(keys: keyReferences, values: values.map(add))
                return index
            case .real, .date:
                // Not shared: `==` would take -0.0 for 0.0.
                objects.append(.scalar(node))
                return objects.count - 1
            default:
                if let index = scalars[node] { return index }
                objects.append(.scalar(node))
                scalars[node] = objects.count - 1
                return objects.count - 1
            }
        }
        _ = add(root)

        let referenceSize = objects.count <= 0xFF ? 1 : objects.count <= 0xFFFF ? 2 : 4
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(bytes.count)
            switch object {
            case .scalar(let node): scalar(node, into: &bytes)
            case .array(let references):
                header(0xA, count: references.count, into: &bytes)
                for reference in references { bigEndian(UInt64(reference), size: referenceSize, into: &bytes) }
            case .dictionary(let keys, let values):
                header(0xD, count: keys.count, into: &bytes)
                for reference in keys + values { bigEndian(UInt64(reference), size: referenceSize, into: &bytes) }
            }
        }
        let tableOffset = bytes.count
        let offsetSize = tableOffset <= 0xFF ? 1 : tableOffset <= 0xFFFF ? 2 : tableOffset <= 0xFFFF_FFFF ? 4 : 8
        for offset in offsets { bigEndian(UInt64(offset), size: offsetSize, into: &bytes) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        bigEndian(UInt64(objects.count), size: 8, into: &bytes)
        bigEndian(0, size: 8, into: &bytes)  // the top object is the first
        bigEndian(UInt64(tableOffset), size: 8, into: &bytes)
        return Data(bytes)
    }

    private static func scalar(_ node: PropertyListNode, into bytes: inout [UInt8]) {
        switch node {
        case .bool(let value): bytes.append(value ? 0x09 : 0x08)
        case .integer(let value): integer(value, into: &bytes)
        case .real(let value):
            bytes.append(0x23)
            bigEndian(value.bitPattern, size: 8, into: &bytes)
        case .date(let value):
            bytes.append(0x33)
            bigEndian(value.timeIntervalSinceReferenceDate.bitPattern, size: 8, into: &bytes)
        case .data(let value):
            header(0x4, count: value.count, into: &bytes)
            bytes += value
        case .string(let value):
            if value.utf8.allSatisfy({ $0 < 0x80 }) {
                header(0x5, count: value.utf8.count, into: &bytes)
                bytes += value.utf8
            } else {
                let units = Array(value.utf16)
                header(0x6, count: units.count, into: &bytes)
                for unit in units { bytes += [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
            }
        case .uid(let value):
            let size = value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
            bytes.append(0x80 | UInt8(size - 1))
            bigEndian(UInt64(value), size: size, into: &bytes)
        case .array, .dictionary:
            preconditionFailure("containers are written by reference")  // `data(_:)` never passes one
        }
    }

    /// An integer as the format keeps it: unsigned in 1, 2 or 4 bytes, else (negatives too) 8.
    private static func integer(_ value: Int64, into bytes: inout [UInt8]) {
        let size = value < 0 ? 8 : value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
        bytes.append(0x10 | UInt8(size.trailingZeroBitCount))
        bigEndian(UInt64(bitPattern: value), size: size, into: &bytes)
    }

    /// A marker with its count: in the low nibble, or (0xF) in an integer that follows.
    private static func header(_ kind: UInt8, count: Int, into bytes: inout [UInt8]) {
        if count < 15 {
            bytes.append(kind << 4 | UInt8(count))
        } else {
            bytes.append(kind << 4 | 0xF)
            integer(Int64(count), into: &bytes)
        }
    }

    private static func bigEndian(_ value: UInt64, size: Int, into bytes: inout [UInt8]) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
