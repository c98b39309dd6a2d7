import NIOCore
import PostgresNIO
import Strata

/// One column of many rows as a PostgreSQL array in the binary format, `NULL`s included (which
/// postgres-nio's own array encoding cannot bind): a batched insert's parameter, spread into
/// rows by `unnest`.
///
/// The format (PostgreSQL's `array_send`): dimensions (1), whether any element is `NULL`, the
/// element type's OID, the length and lower bound (1) of the one dimension, then each element
/// as its length (-1 for `NULL`) and its binary value.
struct PostgresColumnArray: PostgresDynamicTypeEncodable {
    let storage: PostgresStorage
    let values: [SQLValue]

    /// The array of `values` in `storage`, or `nil` when one cannot be stored there as it is (a
    /// value of another kind: the caller then binds row by row, as before). An integer in a
    /// `double precision` column is widened, as the server's assignment would.
    init?(_ storage: PostgresStorage, _ values: [SQLValue]) {
        for value in values {
            switch (storage, value) {
            case (_, .null), (.integer, .integer), (.real, .real), (.real, .integer), (.text, .text), (.blob, .blob): continue
            default: return nil
            }
        }
        self.storage = storage
        self.values = values
    }

    var psqlType: PostgresDataType {
        switch storage {
        case .integer: .int8Array
        case .real: .float8Array
        case .text: .textArray
        case .blob: .byteaArray
        }
    }

    var psqlFormat: PostgresFormat { .binary }

    private var elementType: PostgresDataType {
        switch storage {
        case .integer: .int8
        case .real: .float8
        case .text: .text
        case .blob: .bytea
        }
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        buffer.writeInteger(Int32(1))
        buffer.writeInteger(Int32(values.contains(.null) ? 1 : 0))
        buffer.writeInteger(Int32(bitPattern: elementType.rawValue))
        buffer.writeInteger(Int32(values.count))
        buffer.writeInteger(Int32(1))
        for value in values {
            switch value {
            case .null:
                buffer.writeInteger(Int32(-1))
            case .integer(let number) where storage == .real:
                buffer.writeInteger(Int32(8))
                buffer.writeInteger(Double(number).bitPattern)
            case .integer(let number):
                buffer.writeInteger(Int32(8))
                buffer.writeInteger(number)
            case .real(let number):
                buffer.writeInteger(Int32(8))
                buffer.writeInteger(number.bitPattern)
            case .text(let text):
                buffer.writeInteger(Int32(text.utf8.count))
                buffer.writeString(text)
            case .blob(let bytes):
                buffer.writeInteger(Int32(bytes.count))
                buffer.writeBytes(bytes)
            }
        }
    }
}
