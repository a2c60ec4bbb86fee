/// The fixed cast of the demo: five humans and two droids.
package enum DemoData {
    /// Luke Skywalker, the hero of `EMPIRE`.
    package static let luke = Human(
        id: "1000", name: "Luke Skywalker", friendIDs: ["1002", "1003", "2000", "2001"],
        appearsIn: [.newHope, .empire, .jedi], homePlanet: "Tatooine")
    /// R2-D2, the hero of the saga and of every other film.
    package static let r2d2 = Droid(
        id: "2001", name: "R2-D2", friendIDs: ["1000", "1002", "1003"],
        appearsIn: [.newHope, .empire, .jedi], primaryFunction: "Astromech")

    private static let humans: [Human] = [
        luke,
        Human(id: "1001", name: "Darth Vader", friendIDs: ["1004"],
              appearsIn: [.newHope, .empire, .jedi], homePlanet: "Tatooine"),
        Human(id: "1002", name: "Han Solo", friendIDs: ["1000", "1003", "2001"],
              appearsIn: [.newHope, .empire, .jedi], homePlanet: nil),
        Human(id: "1003", name: "Leia Organa", friendIDs: ["1000", "1002", "2000", "2001"],
              appearsIn: [.newHope, .empire, .jedi], homePlanet: "Alderaan"),
        Human(id: "1004", name: "Wilhuff Tarkin", friendIDs: ["1001"],
              appearsIn: [.newHope], homePlanet: nil),
    ]

    private static let droids: [Droid] = [
        Droid(id: "2000", name: "C-3PO", friendIDs: ["1000", "1002", "1003", "2001"],
              appearsIn: [.newHope, .empire, .jedi], primaryFunction: "Protocol"),
        r2d2,
    ]

    private static let byID: [CharacterID: any StarWarsCharacter] = {
        var index: [CharacterID: any StarWarsCharacter] = [:]
        for human in humans { index[human.id] = human }
        for droid in droids { index[droid.id] = droid }
        return index
    }()

    /// The character with this identifier, if there is one.
    package static func character(id: CharacterID) -> (any StarWarsCharacter)? {
        byID[id]
    }

    /// The hero of `episode`: Luke for `EMPIRE`, R2-D2 otherwise.
    package static func hero(of episode: Episode?) -> any StarWarsCharacter {
        episode == .empire ? luke : r2d2
    }
}
