#if canImport(Glibc)
import Glibc
#endif

/// Wall and process-CPU time per phase of a run, for `TAGWARDEN_TIMINGS=1` and `scripts/bench`.
public enum Timings {
    private static let marks = Locked<[(phase: String, wall: Double, cpu: Double)]>([])

    static func clock(_ id: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Records that `phase` ended now.
    public static func mark(_ phase: String) {
        let wall = clock(CLOCK_MONOTONIC), cpu = clock(CLOCK_PROCESS_CPUTIME_ID)
        marks.withLock { $0.append((phase, wall, cpu)) }
    }

    /// Each phase with the wall and CPU seconds since the previous mark.
    public static func phases() -> [(phase: String, wall: Double, cpu: Double)] {
        marks.withLock { m in
            zip(m.dropFirst(), m).map { ($0.phase, $0.wall - $1.wall, $0.cpu - $1.cpu) }
        }
    }
}

/// Seconds on the monotonic clock.
public func monotonicSeconds() -> Double {
    Timings.clock(CLOCK_MONOTONIC)
}
