import GQLGatePipeline

/// One pass over a GraphQL answer's bytes (`JSONReader` member by member,
/// nothing built) for `AnswerInspection`: what it holds, and the byte ranges
/// of the members the gateway added (`alias`, `idAlias`) to cut out.
struct AnswerWalker {
    let alias: String?
    let idAlias: String?
    var hasData = false
    var hasErrors = false
    var types: Set<String> = []
    var rootFieldTypes: Set<String> = []
    var entities: Set<String> = []
    /// The byte ranges to cut, ascending and apart.
    var cuts: [Range<Int>] = []

    /// Where an object sits: `data` itself, an object a root field returned
    /// (list items included), or deeper.
    private enum Role {
        case data, rootField, nested
    }

    init(alias: String?, idAlias: String?) {
        self.alias = alias
        self.idAlias = idAlias
    }

    /// Reads `bytes`; false when they are not a JSON object.
    mutating func walk(_ bytes: UnsafeRawBufferPointer) throws(JSONReader.Failure) -> Bool {
        try JSONReader.readObject(bytes) { key, reader throws(JSONReader.Failure) in
            if Self.matches(key, "data"), try reader.opening() == .object {
                hasData = true
                try object(&reader, role: .data)
            } else if Self.matches(key, "errors"), try reader.opening() == .array {
                try reader.readElements { element throws(JSONReader.Failure) in
                    hasErrors = true
                    try element.skipValue()
                }
            } else {
                try reader.skipValue()
            }
        }
    }

    private mutating func visit(_ reader: inout JSONReader, role: Role) throws(JSONReader.Failure) {
        switch try reader.opening() {
        case .object: try object(&reader, role: role)
        case .array: try reader.readElements { element throws(JSONReader.Failure) in try visit(&element, role: role) }
        case .scalar: try reader.skipValue()
        }
    }

    /// Reads the object here: its type and id (below `data`), its added
    /// members cut, its other members' values visited.
    private mutating func object(_ reader: inout JSONReader, role: Role) throws(JSONReader.Failure) {
        var typename: String?
        var id: String?
        var members = MemberCuts()
        try reader.readMembers { key, reader throws(JSONReader.Failure) in
            let isAdded = Self.matches(key, alias) || Self.matches(key, idAlias)
            members.willRead(keyAt: reader.keyOffset, isCut: isAdded, into: &cuts)
            let isTypename = Self.matches(key, alias) || Self.matches(key, "__typename")
            let isID = Self.matches(key, idAlias) || Self.matches(key, "id")
            if role != .data, isTypename || isID, try reader.opening() == .scalar {
                switch try reader.value() {
                case .string(let text) where isTypename: typename = text
                case .string(let text) where isID: id = text
                case .integer(let number) where isID: id = String(number)
                default: break
                }
            } else if isAdded {
                try reader.skipValue()
            } else {
                try visit(&reader, role: role == .data ? .rootField : .nested)
            }
            members.didRead(endingAt: reader.offset, isCut: isAdded, into: &cuts)
        }
        members.close(into: &cuts)
        guard let typename else { return }
        types.insert(typename)
        if role == .rootField { rootFieldTypes.insert(typename) }
        if let id { entities.insert(typename + ":" + id) }
    }

    /// Whether a member's key (UTF-8) is `name`.
    private static func matches(_ key: UnsafeRawBufferPointer, _ name: String?) -> Bool {
        guard let name else { return false }
        return key.count == name.utf8.count && key.elementsEqual(name.utf8)
    }
}

/// The cuts that take some members out of one object's bytes with their
/// separators, so that what is left is the same object without them: a
/// member after a kept one goes with the comma before it, members before
/// the first kept one with the commas after them.
private struct MemberCuts {
    /// The end of the previous member's value.
    private var previousEnd = 0
    private var keptAny = false
    /// Where the members cut before the first kept one start.
    private var leadingStart: Int?

    /// Before reading the member whose key starts at `keyOffset`.
    mutating func willRead(keyAt keyOffset: Int, isCut: Bool, into cuts: inout [Range<Int>]) {
        if isCut {
            if !keptAny, leadingStart == nil { leadingStart = keyOffset }
        } else {
            if let start = leadingStart { cuts.append(start..<keyOffset) }
            leadingStart = nil
            keptAny = true
        }
    }

    /// After reading the member, whose value ends at `end`.
    mutating func didRead(endingAt end: Int, isCut: Bool, into cuts: inout [Range<Int>]) {
        if isCut, keptAny { cuts.append(previousEnd..<end) }
        previousEnd = end
    }

    /// After the object's last member.
    func close(into cuts: inout [Range<Int>]) {
        if let start = leadingStart { cuts.append(start..<previousEnd) }
    }
}
