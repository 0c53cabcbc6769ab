#if canImport(Glibc)
import Glibc
#endif

/// Wall and process-CPU time per phase of a run, for `TAGWARDEN_TIMINGS=1` and `scripts/bench`.
public enum Timings {
    private static let marks = Locked<[(phase: String, wall: Double, cpu: Double, peakKiB: Int)]>([])

    static func clock(_ id: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(id, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Records that `phase` ended now.
    public static func mark(_ phase: String) {
        let wall = clock(CLOCK_MONOTONIC), cpu = clock(CLOCK_PROCESS_CPUTIME_ID)
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        marks.withLock { $0.append((phase, wall, cpu, usage.ru_maxrss)) }
    }

    /// Each phase with the wall and CPU seconds since the previous mark, and the process's peak resident memory at its end.
    public static func phases() -> [(phase: String, wall: Double, cpu: Double, peakKiB: Int)] {
        marks.withLock { m in
            zip(m.dropFirst(), m).map { ($0.phase, $0.wall - $1.wall, $0.cpu - $1.cpu, $0.peakKiB) }
        }
    }

    /// The phases as `TAGWARDEN_TIMINGS=1` prints them: `phase extract wall 890482 us cpu 1748957 us peak 412 MiB`.
    public static func lines() -> String {
        phases().map { p in
            "phase \(p.phase) wall \(Int((p.wall * 1e6).rounded())) us cpu \(Int((p.cpu * 1e6).rounded())) us peak \(p.peakKiB / 1024) MiB\n"
        }.joined()
    }
}

/// Seconds on the monotonic clock.
public func monotonicSeconds() -> Double {
    Timings.clock(CLOCK_MONOTONIC)
}
