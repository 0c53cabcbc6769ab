import TagwardenBasics
import TagwardenGit
#if canImport(Glibc)
import Glibc
#endif

/// Signs commits as git does, from git's own configuration: `gpg.format` openpgp (gpg, `gpg.program`) or ssh
/// (`ssh-keygen -Y sign`, `gpg.ssh.program`), with `user.signingKey` (for ssh: a private key file, or a public key
/// whose private half is in the agent). Nothing is guessed: a missing key is an error that says which setting to set.
public struct CommitSigner: Sendable {
    public enum Format: String, Sendable { case openpgp, ssh }
    public let format: Format
    public let key: String
    public let program: String

    /// Whether git would sign commits here unasked (`commit.gpgsign`).
    public static func configured(_ repo: GitRepository) -> Bool {
        ["true", "yes", "on", "1"].contains((repo.configString("commit.gpgsign") ?? "").lowercased())
    }

    /// The signer git's configuration describes; `email` (the committer's) names the OpenPGP key when
    /// `user.signingKey` does not, as git does.
    public static func fromConfig(_ repo: GitRepository, email: String) throws -> CommitSigner {
        let formatName = repo.configString("gpg.format") ?? "openpgp"
        guard let format = Format(rawValue: formatName) else {
            throw TagwardenError("gpg.format is '\(formatName)': tagwarden signs with openpgp or ssh")
        }
        switch format {
        case .openpgp:
            return CommitSigner(format: format, key: repo.configString("user.signingkey") ?? email,
                                program: repo.configString("gpg.openpgp.program") ?? repo.configString("gpg.program") ?? "gpg")
        case .ssh:
            guard let key = repo.configString("user.signingkey"), !key.isEmpty else {
                throw TagwardenError("gpg.format is ssh but user.signingKey is not set: set it to a key file (git config user.signingKey ~/.ssh/id_ed25519)")
            }
            return CommitSigner(format: format, key: key.hasPrefix("~/") ? home() + key.dropFirst(1) : key,
                                program: repo.configString("gpg.ssh.program") ?? "ssh-keygen")
        }
    }

    static func home() -> String { getenv("HOME").map { String(cString: $0) } ?? "" }

    /// The signature of a commit's text, armored as git stores it.
    public func sign(_ content: String) throws -> String {
        switch format {
        case .openpgp:
            let out = try Subprocess.run(program, ["--status-fd=2", "-bsau", key], input: Array(content.utf8))
            guard out.status == 0, out.stderrText.contains("[GNUPG:] SIG_CREATED ") else {
                throw TagwardenError("gpg failed to sign the commit with key \(key): \(Self.lastLine(out.stderrText))")
            }
            return out.stdoutText
        case .ssh:
            // a public key signs with its private half from the agent
            let usesAgent = key.hasSuffix(".pub") || key.hasPrefix("ssh-") || key.hasPrefix("key::")
            if key.hasPrefix("key::") || key.hasPrefix("ssh-") {
                throw TagwardenError("user.signingKey holds a literal key: give the path of its public key file instead")
            }
            let out = try Subprocess.run(program, ["-Y", "sign", "-n", "git", "-f", key] + (usesAgent ? ["-U"] : []), input: Array(content.utf8))
            guard out.status == 0, out.stdoutText.contains("-----BEGIN SSH SIGNATURE-----") else {
                throw TagwardenError("ssh-keygen failed to sign the commit with \(key): \(Self.lastLine(out.stderrText))")
            }
            return out.stdoutText
        }
    }

    static func lastLine(_ s: String) -> String {
        s.split(separator: "\n").last { !$0.hasPrefix("[GNUPG:]") }.map(String.init) ?? "no message"
    }
}
