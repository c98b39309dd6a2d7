import Foundation
@testable import Strata
import Testing

/// A context finds the slot of each property wrapper once per class and entity
/// (``WrapperSlotCache``), not at every access. One class may serve several entities, as one
/// `NSManagedObject` subclass may be the class of several entities in Core Data; the same
/// wrapper then sits in another slot of each, and every object reads and writes its own
/// entity's.
@Suite struct WrapperSlotCacheTests {
    final class Note: ManagedObject {
        @Attribute var text: String
        @Attribute("stars") var rating: Int?
        @Relationship var board: Board?
    }

    final class Board: ManagedObject {
        @Attribute var name: String
        @Relationship var notes: Set<Note>
    }

    /// `Memo` and `Sticky` both use `Note`, with their properties in different orders, so that
    /// no property of `Note` has the same slot in both (`text` 2 and 0, `stars` 1 and 2, `board`
    /// 0 and 1), nor `stars` the same type.
    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Board", class: Board.self) {
                AttributeDescription("name", .string)
                RelationshipDescription("notes", toMany: "Memo", inverse: "board")
            }
            EntityDescription("Memo", class: Note.self) {
                AttributeDescription("subject", .string, optional: true)
                AttributeDescription("stars", .integer16, optional: true)
                AttributeDescription("text", .string)
                RelationshipDescription("board", toOne: "Board", inverse: "notes")
            }
            EntityDescription("Sticky", class: Note.self) {
                AttributeDescription("text", .string)
                AttributeDescription("colour", .string, optional: true)
                AttributeDescription("stars", .integer64, optional: true)
                RelationshipDescription("author", toOne: "Board", inverse: nil)
                RelationshipDescription("board", toOne: "Board", inverse: nil)
            }
        }
    }

    @Test(arguments: [StoreKind.inMemory, .sqlite])
    func oneClassOfTwoEntitiesReadsAndWritesEachEntitysSlots(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(try Self.model(), kind)
        let (memoID, stickyID) = try await backgroundContext(coordinator).perform { context in
            let board = try Board(context: context)
            board.name = "Kitchen"
            // Alternating, so that each access follows one of the other entity's.
            var memos: [Note] = []
            var stickies: [Note] = []
            for index in 0..<4 {
                let memo = try #require(context.insertNewObject(forEntityName: "Memo") as? Note)
                let sticky = try #require(context.insertNewObject(forEntityName: "Sticky") as? Note)
                memo.text = "memo \(index)"
                sticky.text = "sticky \(index)"
                memo.rating = index
                sticky.rating = 10 + index
                memo.board = board
                sticky.board = board
                memos.append(memo)
                stickies.append(sticky)
            }
            // What the wrappers wrote is in each entity's own slots, as key-value access reads them.
            for (index, (memo, sticky)) in zip(memos, stickies).enumerated() {
                #expect(try memo.value(forKey: "text") as? String == "memo \(index)")
                #expect(try memo.value(forKey: "subject") == nil)
                #expect(try memo.value(forKey: "stars") as? Int16 == Int16(index))
                #expect(try sticky.value(forKey: "text") as? String == "sticky \(index)")
                #expect(try sticky.value(forKey: "stars") as? Int64 == Int64(10 + index))
                #expect(try sticky.value(forKey: "colour") == nil && sticky.value(forKey: "author") == nil)
                #expect(memo.text == "memo \(index)" && sticky.text == "sticky \(index)")
                #expect(memo.rating == index && sticky.rating == 10 + index)
                #expect(memo.board === board && sticky.board === board)
            }
            #expect(board.notes.count == 4, "only Memo's board has Board's notes as inverse")
            try context.save()
            return (memos[1].objectID, stickies[2].objectID)
        }

        let read = try await backgroundContext(coordinator).perform { context in
            let memo = try #require(context.existingObject(with: memoID) as? Note)
            let sticky = try #require(context.existingObject(with: stickyID) as? Note)
            return [
                memo.text, sticky.text, "\(memo.rating ?? -1)", "\(sticky.rating ?? -1)", memo.board?.name ?? "", sticky.board?.name ?? "",
            ]
        }
        #expect(read == ["memo 1", "sticky 2", "1", "12", "Kitchen", "Kitchen"])
    }

    /// An object of no context finds its wrappers' slots without a context's cache, and once
    /// inserted, through it.
    @Test func anObjectOfNoContextFindsItsSlots() async throws {
        let coordinator = try await makeCoordinator(try Self.model())
        let read = try await backgroundContext(coordinator).perform { context in
            let entity = try #require(EntityDescription.entity(forEntityName: "Sticky", in: context))
            let sticky = try Note(entity: entity, insertInto: nil)
            sticky.text = "loose"
            sticky.rating = 3
            #expect(sticky.text == "loose" && sticky.rating == 3)
            #expect(try sticky.value(forKey: "stars") as? Int64 == 3)
            context.insert(sticky)
            sticky.rating = 4
            return (sticky.text, sticky.rating, try sticky.value(forKey: "stars") as? Int64)
        }
        #expect(read.0 == "loose" && read.1 == 4 && read.2 == 4)
    }
}
