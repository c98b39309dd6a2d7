import Foundation
import Strata
import Testing

/// Sort descriptors from Swift key paths, as Core Data code writes them
/// (`NSSortDescriptor(keyPath: \Item.timestamp, ascending: true)`, Xcode's app template; issue 33):
/// the key path names the property it reaches, through to-one relationships.
@Suite struct SortKeyPathTests {
    final class Track: ManagedObject {
        @Attribute var title: String
        @Attribute("seconds") var length: Int
        @Attribute var rating: Double?
        @Attribute var added: Date
        @Attribute var id: UUID?
        @Relationship var album: Record?
        @Relationship var playlists: Set<Playlist>

        /// Reads a property through code: no key of its own.
        var shout: String { title.uppercased() }
        var note = "a stored Swift property"
    }

    final class Record: ManagedObject {
        @Attribute var name: String
        @Relationship var artist: Artist?
        @Relationship var tracks: Set<Track>
    }

    final class Artist: ManagedObject {
        @Attribute var name: String?
        @Relationship var records: Set<Record>
    }

    final class Playlist: ManagedObject {
        @Attribute var name: String
        @Relationship var tracks: Set<Track>
    }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel {
            EntityDescription("Track", class: Track.self) {
                AttributeDescription("title", .string)
                AttributeDescription("seconds", .integer32)
                AttributeDescription("rating", .double, optional: true)
                AttributeDescription("added", .date)
                AttributeDescription("id", .uuid, optional: true)
                RelationshipDescription("album", toOne: "Record", inverse: "tracks")
                RelationshipDescription("playlists", toMany: "Playlist", inverse: "tracks")
            }
            EntityDescription("Record", class: Record.self) {
                AttributeDescription("name", .string)
                RelationshipDescription("artist", toOne: "Artist", inverse: "records")
                RelationshipDescription("tracks", toMany: "Track", inverse: "album")
            }
            EntityDescription("Artist", class: Artist.self) {
                AttributeDescription("name", .string, optional: true)
                RelationshipDescription("records", toMany: "Record", inverse: "artist")
            }
            EntityDescription("Playlist", class: Playlist.self) {
                AttributeDescription("name", .string)
                RelationshipDescription("tracks", toMany: "Track", inverse: "playlists")
            }
        }
    }

    @Test func aKeyPathNamesTheKeyItReaches() {
        #expect(FetchSortDescriptor(keyPath: \Track.title, ascending: true).key == "title")
        #expect(FetchSortDescriptor(keyPath: \Track.length).key == "seconds", "the attribute, not the property's name")
        #expect(FetchSortDescriptor(keyPath: \Track.rating).key == "rating")
        #expect(FetchSortDescriptor(keyPath: \Track.added, ascending: false) == .descending("added"))
        #expect(FetchSortDescriptor(keyPath: \Track.id).key == "id")
        #expect(FetchSortDescriptor(keyPath: \Track.album?.name).key == "album.name")
        #expect(FetchSortDescriptor(keyPath: \Track.album?.artist?.name).key == "album.artist.name")
        #expect(FetchSortDescriptor(keyPath: \Record.name, options: .caseInsensitive).options == .caseInsensitive)
        #expect(FetchSortDescriptor(keyPath: \Artist.name).key == "name", "the same name in another class")
    }

    @Test(arguments: [StoreKind.inMemory, .sqlite])
    func aFetchSortsByKeyPaths(_ kind: StoreKind) async throws {
        let coordinator = try await makeCoordinator(Self.model(), kind)
        let titles = try await backgroundContext(coordinator).perform { context in
            var records: [Record] = []
            for name in ["B-sides", "Anthology"] {
                let record = try Record(context: context)
                record.name = name
                records.append(record)
            }
            for (index, title) in ["c", "a", "b", "d"].enumerated() {
                let track = try Track(context: context)
                track.title = title
                track.length = 100 - index
                track.added = Date(timeIntervalSince1970: Double(index))
                track.album = records[index % 2]
            }
            try context.save()
            var request = FetchRequest<Track>()
            request.sortDescriptors = [FetchSortDescriptor(keyPath: \Track.album?.name), FetchSortDescriptor(keyPath: \Track.length)]
            let byAlbum = try context.fetch(request).map(\.title)
            request.sortDescriptors = [FetchSortDescriptor(keyPath: \Track.added, ascending: false)]
            return [byAlbum, try context.fetch(request).map(\.title)]
        }
        #expect(titles == [["d", "a", "b", "c"], ["d", "b", "a", "c"]])
    }

    /// A key path that reaches no modelled property stops the program with the reason, as Core
    /// Data raises for one that is not `@objc`.
    @Test func aKeyPathOfNoModelledPropertyStopsTheProgram() async throws {
        let computed = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = FetchSortDescriptor(keyPath: \SortKeyPathTests.Track.shout)
        }
        let stored = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = FetchSortDescriptor(keyPath: \SortKeyPathTests.Track.note)
        }
        for result in [computed, stored] {
            let message = String(decoding: try #require(result).standardErrorContent, as: UTF8.self)
            #expect(message.contains("is not a key path of @Attribute and @Relationship properties"))
        }
    }
}
