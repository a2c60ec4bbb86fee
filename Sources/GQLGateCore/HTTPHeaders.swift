/// An ordered list of HTTP header fields; names compare case-insensitively.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field as received or to be sent.
    public struct Field: Sendable, Equatable {
        /// The name as written (case preserved).
        public var name: String
        /// The value.
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }

        /// The field whose name and value are these UTF-8 bytes (invalid
        /// sequences repaired), as a server or client reads them off the wire.
        package init(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
            self.init(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        }
    }

    /// The fields in order.
    public private(set) var fields: [Field]

    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    public var isEmpty: Bool { fields.isEmpty }
    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// The first value of `name`, if any.
    public subscript(name: String) -> String? {
        firstIndex(of: name).map { fields[$0].value }
    }

    /// Where the first field named `name` is. Lengths are compared here, so
    /// most fields cost no call.
    private func firstIndex(of name: String) -> Int? {
        let count = name.utf8.count
        return fields.withUnsafeBufferPointer { fields in
            for index in fields.indices where fields[index].name.utf8.count == count && fields[index].name.equalsIgnoringASCIICase(name) {
                return index
            }
            return nil
        }
    }

    /// Calls `body` with the fields read in place. Iterating the list instead
    /// copies each field on the way (two retains); hot paths read through this.
    @inlinable
    public func withFields<Result>(_ body: (UnsafeBufferPointer<Field>) throws -> Result) rethrows -> Result {
        try fields.withUnsafeBufferPointer(body)
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        var values: [String] = []
        forEachValue(of: name) { values.append($0) }
        return values
    }

    /// Calls `body` with every value of `name`, in order. The fields are read
    /// in place, by index (a closure or a `for` given each field copies it:
    /// two retains and two releases), lengths compared first.
    public func forEachValue(of name: String, _ body: (String) throws -> Void) rethrows {
        let count = name.utf8.count
        try fields.withUnsafeBufferPointer { fields in
            for index in fields.indices where fields[index].name.utf8.count == count && fields[index].name.equalsIgnoringASCIICase(name) {
                try body(fields[index].value)
            }
        }
    }

    /// Makes room for `count` fields in all, so that adding the last few
    /// does not copy the list again.
    public mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// Appends a field, keeping any existing one of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// The position of the first field named `name` (in any case) in `fields`.
    public func position(of name: String) -> Int? {
        firstIndex(of: name)
    }

    /// Gives the field at `position` in `fields` the value `value`, keeping its name and place.
    public mutating func setValue(_ value: String, at position: Int) {
        fields[position].value = value
    }

    /// Removes every field named `name`.
    public mutating func remove(name: String) {
        guard firstIndex(of: name) != nil else { return }  // usually none: no pass that moves fields
        removeAll { $0.name.equalsIgnoringASCIICase(name) }
    }

    /// Removes every field `isRemoved` picks, in place, keeping the order of the rest.
    public mutating func removeAll(where isRemoved: (Field) throws -> Bool) rethrows {
        try fields.removeAll(where: isRemoved)
    }

    /// Whether a field named `name` exists.
    public func contains(_ name: String) -> Bool {
        firstIndex(of: name) != nil
    }
}

extension String {
    /// ASCII case-insensitive comparison, as HTTP field names need.
    public func equalsIgnoringASCIICase(_ other: String) -> Bool {
        // Most comparisons differ in length, which a String knows without reading its bytes.
        let count = utf8.count
        guard count == other.utf8.count else { return false }
        // Both strings' own bytes, read in place: a native string's C string is its storage.
        return withCString { x in
            other.withCString { y in
                for i in 0..<count where !Self.sameIgnoringASCIICase(UInt8(bitPattern: x[i]), UInt8(bitPattern: y[i])) { return false }
                return true
            }
        }
    }

    private static func sameIgnoringASCIICase(_ x: UInt8, _ y: UInt8) -> Bool {
        guard x != y else { return true }
        let lower = x | 0x20
        return lower == y | 0x20 && lower >= 0x61 && lower <= 0x7A
    }
}
