import TagwardenBasics
import TagwardenRegex
import TagwardenYAML
import TagwardenGit
import TagwardenPolicy
import TagwardenModel
extension Rule {
    static let tagFields = MarkerComment.tagFields
    static let nameFields = MarkerComment.nameFields
    static let digestFields = MarkerComment.digestFields

    static let markerWrongForm = Rule("marker-wrong-form", scope: .updatePaths) { c in
        let m = c.model
        var evaluators = Model.PolicyEvaluators()
        /// Whether marker k's policy could select `value`: a tag its filter takes and no exclusion drops.
        func couldSelect(_ k: MarkerID, _ value: String) -> Bool {
            guard let p = m.markers[k].policy, let e = m.policyEvaluator(p, cache: &evaluators) else { return false }
            return e.isExcluded(value) == nil && e.key(for: value) != nil
        }
        /// The image marker k's policy follows, where it is not the one whole reference `value` names.
        func otherImage(_ k: MarkerID, _ value: String) -> String? {
            // (the field's image as extracted, else read here)
            let extracted = m.markers[k].image.flatMap { m.images[$0].normalizedName }
            guard let p = m.markers[k].policy, let (image, want) = m.policyImage(p),
                  let have = extracted ?? (try? ImageReference.parse(value).get()).flatMap({ ImageReference.normalizeName($0.name) }),
                  have != want else { return nil }
            return image
        }
        return m.markers.indices.compactMap { k in
            let mk = m.markers[k]
            // (a marker Flux skips writes nothing: marker-ignored says why)
            guard mk.context == .value, mk.skipped == nil, let ref = m.markers[k].ref, let value = mk.scalar?.value else { return nil }
            let key = mk.fieldKey ?? ""
            // (each set asked once: a hash of the key each time)
            let tagField = tagFields.contains(key), nameField = nameFields.contains(key), digestField = digestFields.contains(key)
            let partField = tagField || nameField || digestField || mk.composedName
            // (a digest field's `sha256:<hex>` reads as a name and a tag, but it is a part)
            let holdsFull: Bool = key == "image" && !mk.composedName || !partField && {
                guard case .success(let r) = ImageReference.parse(value) else { return false }
                return r.tag != nil || r.digest != nil
            }()
            let message: String?
            switch ref.part {
            case .reference:
                if tagField { message = "\(key) holds only a tag, but the marker writes a whole reference: use \"\(ref.namespace):\(ref.name):tag\"" }
                else if nameField { message = "\(key) holds only a name, but the marker writes a whole reference: use \"\(ref.namespace):\(ref.name):name\"" }
                else if digestField { message = "\(key) holds only a digest, but the marker writes a whole reference: use \"\(ref.namespace):\(ref.name):digest\"" }
                else { message = nil }
            case .name, .tag, .digest:
                let suffix = ref.part.rawValue
                // (an `image:` that holds a composed image's name takes the :name marker, as `repository:` does)
                let fits = ref.part == .tag ? tagField : ref.part == .name ? nameField || mk.composedName && key == "image" : digestField
                if holdsFull, !fits {
                    let wrong = "this field holds a whole image reference, but the :\(suffix) marker writes only the \(suffix)"
                    // a field the :tag marker has already written, a tag its policy could select standing alone where a
                    // reference goes (team-mercurious/k3s-gitops's `image: sha-f054e88…`)
                    if ref.part == .tag, key == "image", ImageReference.isTag(value), couldSelect(k, value),
                       let p = mk.policy, let (image, _) = m.policyImage(p) {
                        message = "this field takes a whole image reference but holds '\(value)', a tag policy \(m.policyName(p)) could select: "
                            + "the :tag marker has Flux write only the tag here, so the runtime pulls an image named '\(value)'; write "
                            + "\(image):\(value) and use \"\(ref.namespace):\(ref.name)\""
                    // the whole-reference marker is the fix only where the policy follows this field's image
                    } else if let other = otherImage(k, value) {
                        message = wrong + ", and policy \(m.policyName(mk.policy!)) follows \(other), not this field's image: mark it with the policy of its own image"
                    } else {
                        message = wrong + ": use \"\(ref.namespace):\(ref.name)\""
                    }
                } else if partField, !fits {
                    message = "\(key) does not hold a \(suffix): the :\(suffix) marker would write the wrong part of the image here"
                } else {
                    message = nil
                }
            }
            return message.map { c.finding($0, writtenAt: k) }
        }
    }
}
