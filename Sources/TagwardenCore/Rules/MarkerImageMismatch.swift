extension Rule {
    static let markerImageMismatch = Rule("marker-image-mismatch") { m in
        var wanted: [Int: String?] = [:]   // repository → normalised image name
        return m.markers.indices.compactMap { k in
            let info = m.flux.markers[k]
            let key = m.markers[k].fieldKey ?? ""
            // a full-reference marker on a tag or digest field is marker-wrong-form's, not a name to compare
            guard m.markers[k].context == .value, let ref = info.ref, let p = info.policy, ref.suffix == nil || ref.suffix == "name",
                  !(ref.suffix == nil && (tagFields.contains(key) || digestFields.contains(key))),
                  let value = m.markers[k].scalar?.value, let r = m.flux.policies[p].repository,
                  let policyImage = m.flux.repositories[r].spec.image?.value else { return nil }
            if wanted[r] == nil { wanted[r] = ImageReference.normalizeName(policyImage) }
            guard let wantName = wanted[r] ?? nil else { return nil }
            // the image the marked field belongs to was parsed once, when it was extracted; a field that is not
            // an image Tagwarden knows (a `:name` on a custom field) is read here
            let written: String, have: String
            if let ii = m.markers[k].image, let n = m.images[ii].name, let h = m.images[ii].normalizedName {
                (written, have) = (n, h)
            } else {
                let name: String
                if ref.suffix == "name" { name = value } else {
                    guard case .success(let r) = ImageReference.parse(value) else { return nil }
                    name = r.name
                }
                guard let h = ImageReference.normalizeName(name) else { return nil }
                (written, have) = (name, h)
            }
            guard have != wantName else { return nil }
            return m.finding("marker-image-mismatch",
                             "policy \(m.policyName(p)) updates \(policyImage), but this field names \(written): Flux would overwrite it with another image",
                             marker: k)
        }
    }
}
