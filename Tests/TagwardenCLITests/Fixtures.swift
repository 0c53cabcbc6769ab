import TagwardenFixtures

/// Writes flux bootstrap's files for the cluster in `dir` (`bootstrapFiles`) into `r`.
func bootstrap(_ dir: String, flux version: String?, in r: TempRepo, crds: String = "") throws {
    try r.write(bootstrapFiles(dir, flux: version, crds: crds))
}
