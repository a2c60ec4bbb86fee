package import GQLGatePipeline
import GraphQL

/// What validating one document against one schema found, kept with the
/// document (`AnalysedDocument.memoized`) for that schema's generation, so a
/// repeated document is validated once.
package struct ValidationVerdict: Sendable {
    /// The generation of the `LoadedSchema` it was reached against.
    let generation: Int
    /// Every error, with its place in the client's text; empty when the document is valid.
    package let problems: [GatewayError.GraphQLProblem]
    /// Whether some error names a field, type, argument, directive or enum
    /// value the schema lacks: the upstream may be ahead of the schema held.
    package let namesWhatTheSchemaLacks: Bool
    /// The declared variables of each of the document's operations, in the
    /// document's order, with their types resolved in the schema (valid documents only).
    let variables: [[DeclaredVariable]]
    /// Whether some operation declares a variable (else a request's variables need no look).
    let declaresVariables: Bool

    package var isValid: Bool { problems.isEmpty }

    init(generation: Int, problems: [GatewayError.GraphQLProblem], namesWhatTheSchemaLacks: Bool, variables: [[DeclaredVariable]]) {
        self.generation = generation
        self.problems = problems
        self.namesWhatTheSchemaLacks = namesWhatTheSchemaLacks
        self.variables = variables
        declaresVariables = variables.contains { !$0.isEmpty }
    }

    /// One variable an operation declares.
    struct DeclaredVariable: Sendable {
        let name: String
        let type: any GraphQLInputType
        let hasDefault: Bool
    }
}

/// The slot verdicts are kept in.
enum ValidationMemo: DocumentMemo {
    typealias Value = ValidationVerdict
}

extension LoadedSchema {
    /// The verdict on `document` when it was reached against this schema
    /// already; never validates (so it can run on the server thread).
    package func knownVerdict(on document: AnalysedDocument) -> ValidationVerdict? {
        document.memo(ValidationMemo.self) { $0.generation == generation }
    }

    /// The verdict on `document`: every rule of the specification (GraphQL
    /// §5), reached once per document and schema.
    package func verdict(on document: AnalysedDocument) -> ValidationVerdict {
        document.memoized(ValidationMemo.self, isCurrent: { $0.generation == generation }) { reachVerdict(on: document) }
    }

    private func reachVerdict(on document: AnalysedDocument) -> ValidationVerdict {
        let errors = validateDocument(document.document)
        guard !errors.isEmpty else {
            let operations = document.document.definitions.compactMap { $0 as? OperationDefinition }
            return ValidationVerdict(generation: generation, problems: [], namesWhatTheSchemaLacks: false,
                                     variables: operations.map(declaredVariables))
        }
        // The held document has no locations: the errors of a located parse name the client's lines and columns.
        let parsed = document.locatedDocument()
        let located = parsed.map { validateDocument($0.document) } ?? errors
        let problems = located.map { error in
            GatewayError.GraphQLProblem(error.message, locations: parsed.map { parsed in
                error.positions.map { parsed.input.clientLocation(ofParsedOffset: $0) }
            } ?? [])
        }
        let lacking = located.contains { error in Self.schemaLacks.contains { error.message.contains($0) } }
        return ValidationVerdict(generation: generation, problems: problems, namesWhatTheSchemaLacks: lacking, variables: [])
    }

    private func validateDocument(_ ast: Document) -> [GraphQLError] {
        validate(schema: schema, ast: ast)
    }

    /// How GraphQLSwift's rules word an error about something the schema does not have.
    private static let schemaLacks = [
        "Cannot query field", "Unknown type", "Unknown directive", "does not have argument", "Unknown argument",
        "is not defined by type", "does not exist in",
    ]

    private func declaredVariables(of operation: OperationDefinition) -> [ValidationVerdict.DeclaredVariable] {
        operation.variableDefinitions.compactMap { definition in
            // A valid document's variable types are input types of the schema.
            inputType(definition.type).map {
                ValidationVerdict.DeclaredVariable(name: definition.variable.name.value, type: $0, hasDefault: definition.defaultValue != nil)
            }
        }
    }

    private func inputType(_ type: any GraphQL.`Type`) -> (any GraphQLInputType)? {
        switch type {
        case let list as ListType: inputType(list.type).map { GraphQLList($0) }
        case let nonNull as NonNullType: inputType(nonNull.type).flatMap { try? GraphQLNonNull($0) }
        case let named as NamedType: schema.getType(name: named.name.value) as? any GraphQLInputType
        default: nil
        }
    }
}
