package import GraphQL

extension Document {
    /// The document's fragment definitions by name (the last of a name, should a document repeat one).
    package var fragmentsByName: [String: FragmentDefinition] {
        var fragments: [String: FragmentDefinition] = [:]
        for case let fragment as FragmentDefinition in definitions { fragments[fragment.name.value] = fragment }
        return fragments
    }
}
