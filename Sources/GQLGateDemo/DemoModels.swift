/// One of the films of the original Star Wars trilogy.
package enum Episode: String, CaseIterable, Codable, Sendable {
    /// Episode IV, released in 1977.
    case newHope = "NEWHOPE"
    /// Episode V, released in 1980.
    case empire = "EMPIRE"
    /// Episode VI, released in 1983.
    case jedi = "JEDI"
}

/// The identifier of a character; the schema's `ID` scalar. It is written as a
/// string, and a string or an integer is accepted as input.
package struct CharacterID: Hashable, Codable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The identifier as text, e.g. `"2001"`.
    package let rawValue: String

    package init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    package init(stringLiteral value: String) {
        rawValue = value
    }

    package init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    package var description: String { rawValue }
}

/// What every person or droid of the saga has: the schema's `Character` interface.
package protocol StarWarsCharacter: Sendable {
    /// The character's identifier.
    var id: CharacterID { get }
    /// The character's name.
    var name: String { get }
    /// Identifiers of the character's friends.
    var friendIDs: [CharacterID] { get }
    /// The films the character appears in.
    var appearsIn: [Episode] { get }
}

extension StarWarsCharacter {
    /// The character's friends, in the order listed.
    package var friends: [any StarWarsCharacter] {
        friendIDs.compactMap(DemoData.character(id:))
    }
}

/// A humanoid character.
package struct Human: StarWarsCharacter {
    package let id: CharacterID
    package let name: String
    package let friendIDs: [CharacterID]
    package let appearsIn: [Episode]
    /// The planet the human comes from, when known.
    package let homePlanet: String?
}

/// A mechanical character.
package struct Droid: StarWarsCharacter {
    package let id: CharacterID
    package let name: String
    package let friendIDs: [CharacterID]
    package let appearsIn: [Episode]
    /// What the droid was built for.
    package let primaryFunction: String
}

/// The identifier of a review: the schema's `ID` scalar, as for characters.
package typealias ReviewID = CharacterID

/// A viewer's rating of a film.
package struct Review: Codable, Sendable, Equatable {
    /// The review's identifier, unique within its `ReviewStore` ("1", "2", ...).
    package let id: ReviewID
    /// The film reviewed.
    package let episode: Episode?
    /// The rating, 0 to 5.
    package let stars: Int
    /// Free-text comments, if any.
    package let commentary: String?

    package init(id: ReviewID, episode: Episode?, stars: Int, commentary: String?) {
        self.id = id
        self.episode = episode
        self.stars = stars
        self.commentary = commentary
    }
}

/// The review a client submits with `createReview`; the schema's `ReviewInput`.
package struct ReviewInput: Codable, Sendable {
    /// The rating, 0 to 5.
    package let stars: Int
    /// Free-text comments, if any.
    package let commentary: String?
}
