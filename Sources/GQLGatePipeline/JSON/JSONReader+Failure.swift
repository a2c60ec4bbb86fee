extension JSONReader {
    /// Why the bytes are not accepted.
    package struct Failure: Error, Equatable {
        /// What is wrong.
        package enum Problem: Equatable, Sendable {
            /// Not JSON text.
            case invalid
            /// Arrays and objects nest deeper than `maximumDepth`.
            case tooDeep
            /// An object repeats this key (`JSONValue.repeatedKey`).
            case repeatedKey(String)
        }

        /// Byte offset where reading stopped.
        package let offset: Int
        package let problem: Problem

        package init(offset: Int, problem: Problem = .invalid) {
            self.offset = offset
            self.problem = problem
        }

        /// The problem as a predicate for a sentence naming the JSON ("The
        /// request body …"): "is not valid JSON (at byte 12)", "nests
        /// arrays and objects deeper than 512 levels", "repeats the key
        /// "query"" (a long key shortened).
        package var predicate: String {
            switch problem {
            case .invalid: return "is not valid JSON (at byte \(offset))"
            case .tooDeep: return "nests arrays and objects deeper than \(JSONReader.maximumDepth) levels"
            case .repeatedKey(let key):
                var quoted = ""
                JSONValue.writeString(key.count > 64 ? key.prefix(64) + "…" : key, to: &quoted)
                return "repeats the key \(quoted) in one object"
            }
        }
    }
}
