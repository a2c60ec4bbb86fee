@_spi(GQLGateInternals) import GQLGateCore

/// One schema coordinate (`Type.field`) as the field usage counters know it:
/// interned once per process (`FieldCoordinates.intern`), so counting a use
/// is an index, not a string.
package struct FieldCoordinate: Sendable, Hashable {
    /// The coordinate's number, dense from 0 in the order they were first seen.
    package let index: Int
    /// `Type.field`.
    package let name: String
    /// Whether the schema marks the field `@deprecated`.
    package let isDeprecated: Bool
}

/// The schema coordinates one operation selects, fragments expanded, each
/// once: worked out once per document and schema, and stated for each
/// request (`OperationFact.fieldsSelected`).
package struct SelectedFields: Sendable {
    package let coordinates: [FieldCoordinate]

    package init(_ coordinates: [FieldCoordinate]) {
        self.coordinates = coordinates
    }
}

/// Every coordinate seen, interned: the same name and deprecation get the
/// same `FieldCoordinate`, for the process's life (a reloaded schema's
/// coordinates are mostly the old ones; the table grows only with new ones).
package enum FieldCoordinates {
    private static let table = Lock<[Key: FieldCoordinate]>([:])

    private struct Key: Hashable {
        let name: String
        let isDeprecated: Bool
    }

    /// The coordinate `name`, deprecated or not.
    package static func intern(_ name: String, isDeprecated: Bool) -> FieldCoordinate {
        table.withLock { table in
            let key = Key(name: name, isDeprecated: isDeprecated)
            if let known = table[key] { return known }
            let coordinate = FieldCoordinate(index: table.count, name: name, isDeprecated: isDeprecated)
            table[key] = coordinate
            return coordinate
        }
    }
}
