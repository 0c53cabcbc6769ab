import Foundation
import Testing

/// CI's short pass of `scripts/fuzz`: every fuzz target replays its checked-in corpus (seeds, and every input that once
/// crashed it) and fuzzes for a few seconds more, with AddressSanitizer, without a crash or a broken property. The seed
/// is fixed, so a failure here reproduces with the same command; the long runs that look for new crashes are
/// `scripts/fuzz`'s own, with a seed of their own each time.
@Suite struct FuzzTests {
    @Test(.disabled(if: sanitized, "the fuzz build is sanitized already"))
    func everyTargetReplaysItsCorpusAndFuzzesWithoutACrash() throws {
        let listed = try run(packageRoot + "/scripts/fuzz", ["--list"], cwd: packageRoot)
        let targets = listed.stdout.split(separator: "\n").map(String.init)
        #expect(targets.count == 17, "targets: \(targets)")
        let pass = try run(packageRoot + "/scripts/fuzz", ["--seconds", "3", "--seed", "1"], cwd: packageRoot)
        #expect(pass.code == 0, "\(pass.described)")
        for t in targets {
            #expect(pass.stdout.contains("\(t): stat::number_of_executed_units:"), "\(t) did not run: \(pass.described)")
        }
    }
}
