import TagwardenBasics

/// Charts known to complete a values field that names an image with a tag of their own: a bare repository written
/// there runs at the tag the chart adds, not at `latest`. Each row was read from the chart's templates.
enum ChartTags {
    struct Row {
        /// The chart's name, as `spec.chart.spec.chart` gives it.
        let chart: String
        /// The values fields (paths under `spec.values`) the chart completes.
        let fields: [[String]]
        /// The first chart version whose templates complete them; nil when every version read does.
        let since: (major: UInt64, minor: UInt64, patch: UInt64)?
    }

    static let rows: [Row] = [
        // kubecost's cost-analyzer, versions 1.24 to 2.4: `{{ .Values.kubecostFrontend.image }}:prod-{{ $.Chart.AppVersion }}`
        // (`:{{ .Values.imageVersion }}` when that is set; `fullImageName` replaces the field)
        Row(chart: "cost-analyzer", fields: [["kubecostFrontend", "image"], ["kubecostModel", "image"]], since: nil),
        // makeplane's plane-ce, every version: `{{ .Values.web.image | default "…" }}:{{ .Values.planeVersion }}`, and so for
        // each of its own services
        Row(chart: "plane-ce", fields: ["web", "space", "admin", "live", "api", "worker", "beatworker"].map { [$0, "image"] }, since: nil),
        // seaweedfs-csi-driver from 0.2.12: `{{ .Values.seaweedfsCsiPlugin.image }}:{{ .Values.seaweedfsCsiPlugin.tag | default
        // .Chart.AppVersion }}`; before, the field was the whole reference
        Row(chart: "seaweedfs-csi-driver", fields: [["seaweedfsCsiPlugin", "image"], ["mountService", "image"]], since: (0, 2, 12)),
    ]

    /// Charts known to compose a values field written without a `/` into `hub/name:tag` from values of their own: Istio's
    /// istiod, every version read (`{{- if contains "/" .Values.global.proxy.image }}` the field as written, else
    /// `{{ .Values.global.hub }}/{{ .Values.global.proxy.image }}:{{ .Values.global.tag }}`; so `global.proxy_init.image`
    /// and `pilot.image`, with the chart's defaults where the release sets no hub or tag).
    static let composedNames: [String: [[String]]] = [
        "istiod": [["global", "proxy", "image"], ["global", "proxy_init", "image"], ["pilot", "image"]],
    ]

    /// The values fields that the chart `name` at `version` (as the HelmRelease writes it) completes with a tag. A version
    /// that is not one exact release (a range, or none) completes nothing for a row that holds from some version on.
    static func completedFields(chart name: String, version: String?) -> [[String]] {
        guard let row = rows.first(where: { $0.chart == name }) else { return [] }
        guard let since = row.since else { return row.fields }
        // one exact release, `X.Y.Z`: Helm reads `0.2` or `>=0.2.0` as a range
        let core = version.map { $0.hasPrefix("v") ? $0.dropFirst() : Substring($0) } ?? ""
        let parts = core.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }),
              let major = UInt64(parts[0]), let minor = UInt64(parts[1]), let patch = UInt64(parts[2]) else { return [] }
        return (major, minor, patch) >= since ? row.fields : []
    }
}

extension Model {
    /// A bare image in a values field that the release's chart completes with a tag (`ChartTags`), or a name without a
    /// `/` that it completes with a registry and a tag: it needs no tag written, as a chart's `tag: ""` does not.
    static func markChartTagged(_ images: inout Table<ImageID, ImageUse>, objects: Objects) {
        for i in images.indices where images[i].origin == .helmImage && images[i].tag == nil && images[i].digest == nil {
            guard let o = images[i].object, let field = images[i].valuesPath, case .helmRelease(let release)? = objects[o].flux,
                  release.chartTaggedFields.contains(field) || release.chartNamedFields.contains(field) && !images[i].text.containsBytes("/")
            else { continue }
            images[i].tagOptional = true
        }
    }
}
