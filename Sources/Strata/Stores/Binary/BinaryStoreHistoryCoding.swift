import Foundation
import StrataFileFormats

// Persistent history in the binary store's history records (format version 2,
// docs/FileFormat.md, "History record").

extension ByteWriter {
    /// One transaction; its changes name objects by the entity's position in the file's schema
    /// (`entityIndexes`), and a change of an entity the schema lacks is left out.
    mutating func historyTransaction(_ transaction: PersistentHistoryTransaction, entityIndexes: [String: Int]) throws {
        signed(transaction.transactionNumber)
        double(transaction.timestamp.timeIntervalSinceReferenceDate)
        for string in [transaction.author, transaction.contextName, transaction.bundleID, transaction.processID] {
            if let string {
                byte(1)
                self.string(string)
            } else {
                byte(0)
            }
        }
        let changes = transaction.changes.compactMap { change -> (PersistentHistoryChange, Int, Int64)? in
            guard let index = entityIndexes[change.changedObjectID.entityName], let reference = change.changedObjectID.referenceNumber else {
                return nil
            }
            return (change, index, reference)
        }
        varint(changes.count)
        for (change, entityIndex, reference) in changes {
            signed(change.changeID)
            byte(UInt8(change.changeType.rawValue))
            varint(entityIndex)
            signed(reference)
            switch change.changeType {
            case .insert:
                break
            case .update:
                let names = (change.updatedProperties ?? []).sorted()
                varint(names.count)
                for name in names { string(name) }
            case .delete:
                guard let tombstone = change.tombstone else {
                    byte(0)
                    continue
                }
                byte(1)
                varint(tombstone.count)
                for (name, value) in tombstone.sorted(by: { $0.key < $1.key }) {
                    string(name)
                    try attributeValue(value)
                }
            }
        }
    }
}

extension ByteReader {
    /// One transaction, as ``ByteWriter/historyTransaction(_:entityIndexes:)`` wrote it.
    mutating func historyTransaction(schema: StoreSchema, spaces: [ObjectIDSpace], store: String) throws -> PersistentHistoryTransaction {
        let number = try signed()
        let timestamp = try double()
        var strings: [String?] = []
        for _ in 0..<4 {
            switch try byte() {
            case 0: strings.append(nil)
            case 1: strings.append(try string())
            case let flag: throw fail("a history string's flag is \(flag)")
            }
        }
        let count = try self.count(minimumSize: 4)
        var changes: [PersistentHistoryChange] = []
        changes.reserveCapacity(count)
        for _ in 0..<count {
            let changeID = try signed()
            let rawType = try byte()
            guard let type = PersistentHistoryChange.ChangeType(rawValue: Int(rawType)) else { throw fail("unknown change type \(rawType)") }
            let entityIndex = try index(below: schema.entities.count, "entity number")
            let reference = try signed()
            var updated: Set<String>?
            var tombstone: [String: AttributeValue]?
            switch type {
            case .insert:
                break
            case .update:
                var names: Set<String> = []
                for _ in 0..<(try self.count()) { names.insert(try string()) }
                updated = names
            case .delete:
                if try byte() == 1 {
                    var values: [String: AttributeValue] = [:]
                    for _ in 0..<(try self.count(minimumSize: 2)) {
                        let name = try string()
                        values[name] = try attributeValue()
                    }
                    tombstone = values
                }
            }
            changes.append(
                PersistentHistoryChange(
                    changeID: changeID, changedObjectID: ManagedObjectID(space: spaces[entityIndex], number: reference), changeType: type,
                    updatedProperties: updated, tombstone: tombstone, transactionNumber: number))
        }
        return PersistentHistoryTransaction(
            transactionNumber: number, storeID: store, timestamp: Date(timeIntervalSinceReferenceDate: timestamp), author: strings[0],
            contextName: strings[1], bundleID: strings[2], processID: strings[3], changes: changes)
    }
}
