package import GQLGateCore

import Synchronization

/// New trace and span ids: SplitMix64 over an atomic counter seeded from the
/// system's random source once, so a span costs no system call and no lock.
/// The ids are unique and well spread, not secret.
package final class SpanIDs: Sendable {
    private let state: Atomic<UInt64>

    package init(seed: UInt64 = UInt64.random(in: .min ... .max)) {
        state = Atomic(seed)
    }

    /// A non-zero 64-bit id.
    package func next() -> UInt64 {
        while true {
            var z = state.wrappingAdd(0x9E37_79B9_7F4A_7C15, ordering: .relaxed).newValue
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            if z != 0 { return z }
        }
    }

    /// A new trace id.
    package func nextTraceID() -> TraceID {
        TraceID(high: next(), low: next())
    }
}
