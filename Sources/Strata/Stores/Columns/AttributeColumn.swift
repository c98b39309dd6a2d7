import Foundation

/// One attribute slot of a table's rows, stored as one contiguous array of plain values.
///
/// Integers and booleans are `Int64`s, doubles and dates `Double`s (a date as its interval
/// since the reference date, which is what `Date` holds), floats their bit patterns; strings
/// one UTF-8 arena with each string's end offset. Absent values are a bit each, beside.
/// Values of any other type, or a column whose values do not all have one type, are kept as
/// `AttributeValue?`s (the column turns into that form when the first odd value arrives, so
/// every value reads back exactly as it was appended).
///
/// The column takes its type from its first value: a table need not be told its layout.
/// Why columns and not rows: at 1,000,000 rows, a row's own array of enum values (and a heap
/// string per long string) made loading a store allocate and retain millions of times and
/// hold several times the memory of the values themselves (issue 15).
package struct AttributeColumn: Sendable {
    private enum Kind: Sendable, Equatable {
        /// No value yet: every position so far is absent.
        case unknown
        case integer16, integer32, integer64, boolean, float
        case double, date
        case string
        /// Any value, boxed.
        case boxed
    }

    private var kind = Kind.unknown
    private var integers: [Int64] = []
    private var reals: [Double] = []
    private var bytes: [UInt8] = []
    /// Where each string ends in `bytes` (it starts where the one before ends).
    private var ends: [UInt32] = []
    private var boxed: [AttributeValue?] = []
    private var absent = AbsenceBits()
    /// Positions in the column.
    private(set) var count = 0

    package init() {}

    @inline(__always)
    subscript(position: Int) -> AttributeValue? {
        switch kind {
        case .unknown: return nil
        case .boxed: return boxed[position]
        default: break
        }
        if absent[position] { return nil }
        switch kind {
        case .integer16: return .integer16(Int16(truncatingIfNeeded: integers[position]))
        case .integer32: return .integer32(Int32(truncatingIfNeeded: integers[position]))
        case .integer64: return .integer64(integers[position])
        case .boolean: return .boolean(integers[position] != 0)
        case .float: return .float(Float(bitPattern: UInt32(truncatingIfNeeded: integers[position])))
        case .double: return .double(reals[position])
        case .date: return .date(Date(timeIntervalSinceReferenceDate: reals[position]))
        case .string: return .string(string(at: position))
        case .unknown, .boxed: return nil  // handled above
        }
    }

    // MARK: Typed reads, for scans that should not box every value
    // Inlined into the scans' loops. Inlining does not spare a column read out of an array the
    // copy a call makes of it (a retain and release of each of its arrays): hot loops read
    // columns from `StoredColumns.attributes`, a class's `let`, which they are not copied out of.

    /// Whether the position holds no value.
    @inline(__always)
    func isAbsent(_ position: Int) -> Bool {
        switch kind {
        case .unknown: true
        case .boxed: boxed[position] == nil
        default: absent[position]
        }
    }

    /// The value of an integer attribute (not a boolean), as `AttributeValue.integerValue` gives it.
    @inline(__always)
    func integer(at position: Int) -> Int64? {
        switch kind {
        case .integer16, .integer32, .integer64: absent[position] ? nil : integers[position]
        case .boxed: boxed[position]?.integerValue
        case .unknown, .boolean, .float, .double, .date, .string: nil
        }
    }

    /// The value of a double or float, or an integer as a double; `nil` for other types.
    @inline(__always)
    func real(at position: Int) -> Double? {
        switch kind {
        case .double: absent[position] ? nil : reals[position]
        case .integer16, .integer32, .integer64: absent[position] ? nil : Double(integers[position])
        case .float: absent[position] ? nil : Double(Float(bitPattern: UInt32(truncatingIfNeeded: integers[position])))
        case .unknown, .boolean, .date, .string: nil
        case .boxed:
            switch boxed[position] {
            case .double(let v)?: v
            case .float(let v)?: Double(v)
            case let other?: other.integerValue.map(Double.init)
            case nil: nil
            }
        }
    }

    /// The value of a string attribute.
    @inline(__always)
    func stringValue(at position: Int) -> String? {
        switch kind {
        case .string: absent[position] ? nil : string(at: position)
        case .boxed: if case .string(let v)? = boxed[position] { v } else { nil }
        default: nil
        }
    }

    /// The value of a date attribute.
    @inline(__always)
    func dateValue(at position: Int) -> Date? {
        switch kind {
        case .date: absent[position] ? nil : Date(timeIntervalSinceReferenceDate: reals[position])
        case .boxed: if case .date(let v)? = boxed[position] { v } else { nil }
        default: nil
        }
    }

    /// Hands `body` the UTF-8 bytes of the string at `position`, in place; `nil`, without
    /// calling it, where the column does not hold strings as bytes or the value is absent.
    @inline(__always)
    func withUTF8<Result>(at position: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        guard kind == .string, !absent[position] else { return nil }
        return withBytes(ofString: position, body)
    }

    private func string(at position: Int) -> String {
        // The bytes were a Swift string's: valid UTF-8, so decoding repairs nothing.
        withBytes(ofString: position) { String(decoding: $0, as: UTF8.self) }
    }

    private func withBytes<Result>(ofString position: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let start = position == 0 ? 0 : Int(ends[position - 1])
        let end = Int(ends[position])
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<end])) }
    }

    // MARK: Appending

    package mutating func append(_ value: AttributeValue?) {
        guard let value else { return appendAbsent() }
        if kind == .unknown { adopt(Self.kind(of: value)) }
        if appendTyped(value) {
            absent.append(absent: false)
        } else {
            box()
            boxed.append(value)
        }
        count += 1
    }

    /// Appends a string given as UTF-8 bytes, without making a `String` of it when it is ASCII
    /// (what a store file holds, mostly). `false`, appending nothing, when the bytes are not
    /// valid UTF-8.
    package mutating func appendString(utf8: some Collection<UInt8>) -> Bool {
        guard kind == .string || kind == .unknown, utf8.allSatisfy({ $0 < 0x80 }), bytes.count + utf8.count <= Int(UInt32.max) else {
            guard let string = String(validating: utf8, as: UTF8.self) else { return false }
            append(.string(string))
            return true
        }
        if kind == .unknown { adopt(.string) }
        bytes.append(contentsOf: utf8)
        ends.append(UInt32(bytes.count))
        absent.append(absent: false)
        count += 1
        return true
    }

    /// Positions `range` of `other`, appended: whole slices of arrays where the two columns
    /// have one type (folding a table copies most of its rows this way), value by value where not.
    mutating func append(contentsOf other: AttributeColumn, _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        if kind == .unknown, other.kind != .unknown { adopt(other.kind) }
        guard kind == other.kind || other.kind == .unknown else {
            for position in range { append(other[position]) }
            return
        }
        switch other.kind {
        case .unknown:
            for _ in range { appendAbsent() }
            return
        case .boxed:
            boxed.append(contentsOf: other.boxed[range])
        case .integer16, .integer32, .integer64, .boolean, .float:
            integers.append(contentsOf: other.integers[range])
        case .double, .date:
            reals.append(contentsOf: other.reals[range])
        case .string:
            let start = range.lowerBound == 0 ? 0 : Int(other.ends[range.lowerBound - 1])
            let end = Int(other.ends[range.upperBound - 1])
            guard bytes.count + (end - start) <= Int(UInt32.max) else {
                for position in range { append(other[position]) }
                return
            }
            let shift = Int64(bytes.count) - Int64(start)
            bytes.append(contentsOf: other.bytes[start..<end])
            ends.append(contentsOf: other.ends[range].lazy.map { UInt32(Int64($0) + shift) })
        }
        if other.kind != .boxed { absent.append(contentsOf: other.absent, range) }
        count += range.count
    }

    private mutating func appendAbsent() {
        switch kind {
        case .unknown: break
        case .boxed: boxed.append(nil)
        case .integer16, .integer32, .integer64, .boolean, .float: integers.append(0); absent.append(absent: true)
        case .double, .date: reals.append(0); absent.append(absent: true)
        case .string: ends.append(UInt32(bytes.count)); absent.append(absent: true)
        }
        count += 1
    }

    /// Appends a value of the column's type to its array; `false` (nothing appended) for any other.
    private mutating func appendTyped(_ value: AttributeValue) -> Bool {
        switch (kind, value) {
        case (.integer16, .integer16(let v)): integers.append(Int64(v))
        case (.integer32, .integer32(let v)): integers.append(Int64(v))
        case (.integer64, .integer64(let v)): integers.append(v)
        case (.boolean, .boolean(let v)): integers.append(v ? 1 : 0)
        case (.float, .float(let v)): integers.append(Int64(v.bitPattern))
        case (.double, .double(let v)): reals.append(v)
        case (.date, .date(let v)): reals.append(v.timeIntervalSinceReferenceDate)
        case (.string, .string(var v)):
            let fits = v.withUTF8 { utf8 in
                guard bytes.count + utf8.count <= Int(UInt32.max) else { return false }
                bytes.append(contentsOf: utf8)
                return true
            }
            guard fits else { return false }
            ends.append(UInt32(bytes.count))
        default: return false
        }
        return true
    }

    private static func kind(of value: AttributeValue) -> Kind {
        switch value {
        case .integer16: .integer16
        case .integer32: .integer32
        case .integer64: .integer64
        case .boolean: .boolean
        case .float: .float
        case .double: .double
        case .date: .date
        case .string: .string
        default: .boxed
        }
    }

    /// Gives a column that has held only absent values a type: the absent values so far get
    /// their place in its arrays.
    private mutating func adopt(_ newKind: Kind) {
        precondition(kind == .unknown)
        kind = newKind
        switch newKind {
        case .unknown: break
        case .boxed: boxed = Array(repeating: nil, count: count)
        case .integer16, .integer32, .integer64, .boolean, .float: integers = Array(repeating: 0, count: count)
        case .double, .date: reals = Array(repeating: 0, count: count)
        case .string: ends = Array(repeating: 0, count: count)
        }
        if newKind != .boxed {
            for _ in 0..<count { absent.append(absent: true) }
        }
    }

    /// Turns the column into boxed values: what a value of another type than the column's needs.
    private mutating func box() {
        guard kind != .boxed else { return }
        boxed = (0..<count).map { self[$0] }
        kind = .boxed
        integers = []
        reals = []
        bytes = []
        ends = []
        absent = AbsenceBits()
    }
}
