import Foundation
import Logging
import NIOCore
import PostgresNIO
import Strata

/// Statements on one connection, run to completion from synchronous code: the store's contract
/// is synchronous (it runs on the coordinator's and contexts' queues, never on an event loop), so
/// each statement waits for its future. Every value is a bound parameter; only identifiers,
/// quoted by ``PostgresSQL/quoted(_:)``, are ever part of the SQL text.
enum PostgresSQL {
    /// `name` as a quoted identifier: any name, however hostile, stays one identifier.
    static func quoted(_ name: String) -> String {
        SQLDialect.quotedName(name)
    }

    /// `name` in `schema`, both quoted.
    static func qualified(_ schema: String, _ name: String) -> String {
        quoted(schema) + "." + quoted(name)
    }

    /// The bindings of values as the SQLite store encodes them (the PostgreSQL store keeps Core
    /// Data's encodings: integers, doubles, text and bytes).
    static func bindings(_ values: [SQLValue]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let v): bindings.append(v)
            case .real(let v): bindings.append(v)
            case .text(let v): bindings.append(v)
            case .blob(let v): bindings.append(ByteBuffer(bytes: v))
            }
        }
        return bindings
    }

    /// A value as the prepared-statement API binds it (the same encodings as ``bindings(_:)``).
    static func data(_ value: SQLValue) -> PostgresData {
        switch value {
        case .null: .null
        case .integer(let v): PostgresData(int64: v)
        case .real(let v): PostgresData(double: v)
        case .text(let v): PostgresData(string: v)
        case .blob(let v): PostgresData(bytes: v)
        }
    }

    /// `sql` with each parameter `$n` cast to the type of `values[n - 1]` (a NULL's left as the
    /// server infers it): a prepared statement's parameters then have the types a statement sent
    /// with its values has, whatever the server would infer from the columns they meet. Quoted
    /// names and literals are left as they are.
    ///
    /// It runs on the statement's UTF-8 bytes (a read of 200 objects by reference is one such
    /// statement per batch, its text long): a quote, `$` or digit byte is never part of a
    /// longer character in UTF-8.
    static func typedPlaceholders(_ sql: String, _ values: [SQLValue]) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(sql.utf8.count + values.count * 10)
        let (doubleQuote, singleQuote, dollar, zero, nine) = (UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "$"), UInt8(ascii: "0"), UInt8(ascii: "9"))
        var quote: UInt8?
        let bytes = Array(sql.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            result.append(byte)
            if let open = quote {
                if byte == open { quote = nil }  // a doubled quote closes and opens again
                continue
            }
            if byte == doubleQuote || byte == singleQuote {
                quote = byte
                continue
            }
            guard byte == dollar else { continue }
            var number = 0
            var digits = 0
            while index < bytes.count, bytes[index] >= zero, bytes[index] <= nine {
                result.append(bytes[index])
                if digits < 9 { number = number * 10 + Int(bytes[index] - zero) }
                digits += 1
                index += 1
            }
            guard digits > 0, digits <= 9, number >= 1, number <= values.count else { continue }
            let cast: String
            switch values[number - 1] {
            case .null: continue
            case .integer: cast = "::bigint"
            case .real: cast = "::double precision"
            case .text: cast = "::text"
            case .blob: cast = "::bytea"
            }
            result.append(contentsOf: cast.utf8)
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The error a failed statement becomes: the server's refusal with its SQLSTATE, or the
    /// connection's loss.
    static func storeError(_ error: any Error, doing what: String) -> any Error {
        if error is PostgresStoreError || error is PersistenceError { return error }
        // The prepared-statement API reports the server's errors in its older type.
        if case .server(let response)? = error as? PostgresError {
            let state = response.fields[.sqlState] ?? ""
            let code: PostgresStoreError.Code = state.hasPrefix("57P") || state.hasPrefix("08") ? .unreachable : .server
            let detail = response.fields[.detail].map { " (\($0))" } ?? ""
            return PostgresStoreError(
                code, sqlState: response.fields[.sqlState], "\(what): \(response.fields[.message] ?? "the server refused the statement")\(detail)")
        }
        if error is PostgresError { return PostgresStoreError(.unreachable, "\(what): the connection to the server failed (\(error))") }
        guard let error = error as? PSQLError else {
            return PostgresStoreError(.unreachable, "\(what): \(error)")
        }
        if let info = error.serverInfo {
            let message = info[.message] ?? "the server refused the statement"
            let state = info[.sqlState] ?? ""
            // A server shutting down (57P01…) or a connection failure the server reports (08…)
            // ends the connection: the server is out of reach, not refusing this statement.
            let code: PostgresStoreError.Code = state.hasPrefix("57P") || state.hasPrefix("08") ? .unreachable : .server
            return PostgresStoreError(code, sqlState: info[.sqlState], "\(what): \(message)\(info[.detail].map { " (\($0))" } ?? "")")
        }
        return PostgresStoreError(.unreachable, "\(what): the connection to the server failed (\(error.code))")
    }
}

extension PostgresConnection {
    /// Runs `sql` with `values` bound, and returns every row.
    func rows(_ sql: String, _ values: [SQLValue] = [], logger: Logger) throws -> [PostgresRow] {
        try result(sql, PostgresSQL.bindings(values), logger: logger).rows
    }

    /// Runs `sql` with `bindings` (values of other types than a column's: dates, arrays), and
    /// returns every row.
    func rows(_ sql: String, bindings: PostgresBindings, logger: Logger) throws -> [PostgresRow] {
        try result(sql, bindings, logger: logger).rows
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(logger: Logger, _ body: () throws -> T) throws -> T {
        try run("BEGIN", logger: logger)
        do {
            let result = try body()
            try run("COMMIT", logger: logger)
            return result
        } catch {
            if (error as? PostgresStoreError)?.code != .unreachable { _ = try? run("ROLLBACK", logger: logger) }
            throw error
        }
    }

    /// Runs `sql` with `values` bound, and hands each row to `body` as it arrives (on the
    /// connection's event loop, one row at a time), never holding them all: a large read does not
    /// build and copy an array of rows first.
    func forEachRow(_ sql: String, _ values: [SQLValue], logger: Logger, _ body: @escaping @Sendable (PostgresRow) throws -> Void) throws {
        guard !isClosed else { throw PostgresStoreError(.unreachable, "the connection to the server is closed") }
        do {
            _ = try waitUnlessClosed(query(PostgresQuery(unsafeSQL: sql, binds: PostgresSQL.bindings(values)), logger: logger, body))
        } catch {
            throw PostgresSQL.storeError(error, doing: "a statement failed")
        }
    }

    /// Runs `statement` with `values` bound, and hands each row to `body` as it arrives (as
    /// ``forEachRow(_:_:logger:_:)`` does).
    func forEachRow(
        prepared statement: PreparedQuery, _ values: [SQLValue], _ body: @escaping @Sendable (PostgresRow) throws -> Void
    ) throws {
        guard !isClosed else { throw PostgresStoreError(.unreachable, "the connection to the server is closed") }
        do {
            try waitUnlessClosed(statement.execute(values.map(PostgresSQL.data), body))
        } catch {
            throw PostgresSQL.storeError(error, doing: "a statement failed")
        }
    }

    /// Runs `sql` with `values` bound, and returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue] = [], logger: Logger) throws -> Int {
        try result(sql, PostgresSQL.bindings(values), logger: logger).metadata.rows ?? 0
    }

    private func result(_ sql: String, _ bindings: PostgresBindings, logger: Logger) throws -> PostgresQueryResult {
        guard !isClosed else { throw PostgresStoreError(.unreachable, "the connection to the server is closed") }
        do {
            return try waitUnlessClosed(query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger))
        } catch {
            throw PostgresSQL.storeError(error, doing: "a statement failed")
        }
    }
}

/// A save's writes, sent without waiting for each: the connection runs them in order, each as
/// soon as the one before is done, with no thread woken between them; the save waits once, for
/// all, and learns which changed no row. A statement whose answer decides what comes next (a
/// uniqueness check) waits for the ones before it first (``waitForAll()``), so that it is never
/// answered for a transaction an earlier statement's failure aborted.
struct PipelinedStatements {
    let connection: PostgresConnection
    let logger: Logger
    /// What a batched write's answer is checked for (``sendBatch(_:bindings:check:)``).
    enum BatchCheck {
        /// The keys it returns: of these objects, those whose key it does not return (taken
        /// already, or at another version) are among those ``waitForAll()`` returns.
        case keys([Int64: ManagedObjectID])
        /// How many rows it wrote: fewer throws ``PostgresRelationalConnection/UncheckedWriteMissedRows``.
        case count(Int)
        /// Nothing: it writes what it can (a link) or fails (an unchecked insert).
        case none
    }

    /// Each statement sent and not yet answered, with the object it writes (an optimistic-
    /// locking statement's), or how a batched write's answer is checked.
    private var pending: [(result: EventLoopFuture<PostgresQueryResult>, object: ManagedObjectID?, batch: BatchCheck?)] = []
    private var unchanged: [ManagedObjectID] = []
    /// The most statements in flight: each holds its text and values until answered, so a save
    /// of a million objects must not send them all before waiting for any.
    static let depth = 256
    /// The most batched writes in flight (``sendBatch(_:bindings:check:)``).
    static let batchDepth = 4

    init(connection: PostgresConnection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    /// Sends `sql` with `values`; when it changes no row, `object` is among those
    /// ``waitForAll()`` returns.
    mutating func send(_ sql: String, _ values: [SQLValue], object: ManagedObjectID? = nil) throws {
        try send(sql, bindings: PostgresSQL.bindings(values), object: object)
    }

    mutating func send(_ sql: String, bindings: PostgresBindings, object: ManagedObjectID? = nil) throws {
        try send(sql, bindings: bindings, object: object, batch: nil)
    }

    /// Sends a statement that writes many rows (a batched insert, update or delete), its answer
    /// checked as `check` says.
    mutating func sendBatch(_ sql: String, bindings: PostgresBindings, check: BatchCheck) throws {
        // Each holds thousands of rows' values until answered: a few in flight keep the server busy.
        if pending.count(where: { $0.batch != nil }) >= Self.batchDepth { try waitForPending() }
        try send(sql, bindings: bindings, object: nil, batch: check)
    }

    private mutating func send(_ sql: String, bindings: PostgresBindings, object: ManagedObjectID?, batch: BatchCheck?) throws {
        guard !connection.isClosed else { throw PostgresStoreError(.unreachable, "the connection to the server is closed") }
        if pending.count >= Self.depth { try waitForPending() }
        pending.append((connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger), object, batch))
    }

    /// Waits for every statement sent; returns the objects whose statement changed no row. The
    /// first failure is the one thrown: the statements after it failed only because it did.
    mutating func waitForAll() throws -> [ManagedObjectID] {
        try waitForPending()
        defer { unchanged.removeAll() }
        return unchanged
    }

    private mutating func waitForPending() throws {
        defer { pending.removeAll(keepingCapacity: true) }
        for (result, object, batch) in pending {
            let answer: PostgresQueryResult
            do {
                answer = try connection.waitUnlessClosed(result)
            } catch {
                throw PostgresSQL.storeError(error, doing: "a statement failed")
            }
            switch batch {
            case .keys(let keyed)?:
                var missing = keyed
                for row in answer.rows {
                    if let key = try row.makeRandomAccess()[0].int64() { missing[key] = nil }
                }
                unchanged += missing.sorted { $0.key < $1.key }.map(\.value)
            case .count(let sent)?:
                guard answer.metadata.rows == sent else { throw PostgresRelationalConnection.UncheckedWriteMissedRows() }
            case .none?:
                continue
            case nil:
                if answer.metadata.rows ?? 0 == 0, let object { unchanged.append(object) }
            }
        }
    }
}

/// A row's cells by position: a row as postgres-nio gives it, or cells made anew.
protocol PostgresCells {
    subscript(index: Int) -> PostgresCell { get }
}

extension PostgresRandomAccessRow: PostgresCells {}

/// A prepared statement's row as the cells it holds: binary, which postgres-nio asks the server
/// for, though its `PreparedQuery` labels them with the format of the statement's description
/// (text), in which they would not decode.
struct PreparedStatementCells: PostgresCells {
    let row: PostgresRandomAccessRow

    init(_ row: PostgresRow) {
        self.row = row.makeRandomAccess()
    }

    subscript(index: Int) -> PostgresCell {
        var cell = row[index]
        cell.format = .binary
        return cell
    }
}

extension PostgresCell {
    /// The cell's value as the store wrote it, read by the column's storage class.
    func value(as storage: PostgresStorage) throws -> SQLValue {
        guard let bytes else { return .null }
        if let value = binaryValue(of: bytes, as: storage) { return value }
        do {
            switch storage {
            case .integer: return .integer(try decode(Int64.self))
            case .real: return .real(try decode(Double.self))
            case .text: return .text(try decode(String.self))
            case .blob: return .blob(try decode(Data.self))
            }
        } catch {
            throw PostgresStoreError(.server, "the column \(columnName) holds a \(dataType) the store did not write: \(error)")
        }
    }

    /// The value of a binary cell of one of the types the store's tables have (`bigint`,
    /// `double precision`, `text`, `bytea`, and the `integer` of a computed column), read from
    /// its bytes; `nil` for any other, which postgres-nio's decoding reads (and reports). The
    /// store reads every row it decodes, so this skips the generic decoding's per-cell work:
    /// it was a sixth of reading a row.
    private func binaryValue(of bytes: ByteBuffer, as storage: PostgresStorage) -> SQLValue? {
        guard format == .binary else { return nil }
        switch storage {
        case .integer: return Self.binaryInteger(bytes, dataType).map(SQLValue.integer)
        case .real:
            guard dataType == .float8, bytes.readableBytes == 8, let bits = bytes.getInteger(at: bytes.readerIndex, as: UInt64.self) else {
                return nil
            }
            return .real(Double(bitPattern: bits))
        case .text:
            guard dataType == .text || dataType == .varchar, let text = bytes.getString(at: bytes.readerIndex, length: bytes.readableBytes) else {
                return nil
            }
            return .text(text)
        case .blob:
            guard dataType == .bytea else { return nil }
            return .blob(Data(bytes.readableBytesView))
        }
    }

    /// A binary `bigint`, `integer` or `smallint` cell's value (big-endian, as the protocol
    /// sends it); `nil` for any other type or size.
    private static func binaryInteger(_ bytes: ByteBuffer, _ type: PostgresDataType) -> Int64? {
        let at = bytes.readerIndex
        switch (type, bytes.readableBytes) {
        case (.int8, 8): return bytes.getInteger(at: at, as: Int64.self)
        case (.int4, 4): return bytes.getInteger(at: at, as: Int32.self).map(Int64.init)
        case (.int2, 2): return bytes.getInteger(at: at, as: Int16.self).map(Int64.init)
        default: return nil
        }
    }

    /// The cell's value by its type: integers and Booleans as integers, floating-point and
    /// numeric as doubles, bytes as bytes, anything else as text. What a statement computes
    /// (a count, a minimum) reads so, whatever its type.
    func value() throws -> SQLValue {
        guard bytes != nil else { return .null }
        do {
            switch dataType {
            case .int2, .int4, .int8: return .integer(try decode(Int64.self))
            case .bool: return .integer(try decode(Bool.self) ? 1 : 0)
            case .float4, .float8: return .real(try decode(Double.self))
            case .numeric:
                guard let number = Double(try decode(String.self)) else { throw PostgresStoreError(.server, "\(columnName) is not a number") }
                return .real(number)
            case .bytea: return .blob(try decode(Data.self))
            default: return .text(try decode(String.self))
            }
        } catch let error as PostgresStoreError {
            throw error
        } catch {
            throw PostgresStoreError(.server, "the column \(columnName) holds a \(dataType) the store cannot read: \(error)")
        }
    }

    /// An array of integers (a to-many's targets), empty for NULL.
    func int64Array() throws -> [Int64] {
        guard bytes != nil else { return [] }
        do {
            return try decode([Int64].self)
        } catch {
            throw PostgresStoreError(.server, "the column \(columnName) holds a \(dataType), not the bigint[] the store reads: \(error)")
        }
    }

    /// An integer column's value, or `nil` for NULL.
    func int64() throws -> Int64? {
        guard let bytes else { return nil }
        if format == .binary, let value = Self.binaryInteger(bytes, dataType) { return value }
        do {
            return try decode(Int64.self)
        } catch {
            throw PostgresStoreError(.server, "the column \(columnName) holds a \(dataType), not the bigint the store wrote: \(error)")
        }
    }
}

/// How a column stores values: the four classes of Core Data's encodings.
enum PostgresStorage: Sendable {
    case integer, real, text, blob

    init(_ type: AttributeType) {
        switch type {
        case .integer16, .integer32, .integer64, .boolean: self = .integer
        case .double, .float, .date, .decimal: self = .real
        case .string, .uri, .objectID: self = .text
        case .binaryData, .transformable, .uuid, .composite, .undefined: self = .blob
        }
    }

    /// The column type.
    var sqlType: String {
        switch self {
        case .integer: "bigint"
        case .real: "double precision"
        case .text: "text"
        case .blob: "bytea"
        }
    }
}

extension PostgresConnection {
    /// Closes the connection without waiting, keeping it alive until it is closed (a connection
    /// that goes before its close completes is a bug postgres-nio asserts on).
    func closeSoon() {
        close().whenComplete { _ in withExtendedLifetime(self) {} }
    }
}
