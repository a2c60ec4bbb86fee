extension JSONValue {
    /// A key that an object in this value, at any depth, repeats (the first
    /// found), or nil: a client's input that repeats one is refused, since
    /// gqlgate (which reads the first) and the upstream might read different
    /// members. Keys are compared as Swift strings, so two canonically
    /// equivalent spellings count as one key. Linear in the value's size.
    package var repeatedKey: String? {
        switch self {
        case .array(let values):
            for value in values {
                if let key = value.repeatedKey { return key }
            }
            return nil
        case .object(let members):
            if let key = Self.repeatedKey(among: members) { return key }
            for member in members {
                if let key = member.value.repeatedKey { return key }
            }
            return nil
        default:
            return nil
        }
    }

    /// A key repeated among one object's members: pairwise for a few
    /// members (no allocation), through a set for more.
    private static func repeatedKey(among members: [(key: String, value: JSONValue)]) -> String? {
        guard members.count > 1 else { return nil }
        if members.count <= 8 {
            for i in 1..<members.count {
                for j in 0..<i where members[j].key == members[i].key { return members[i].key }
            }
            return nil
        }
        var seen = Set<String>(minimumCapacity: members.count)
        for member in members where !seen.insert(member.key).inserted { return member.key }
        return nil
    }
}
