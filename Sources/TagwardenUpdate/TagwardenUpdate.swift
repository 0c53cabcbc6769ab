// The update engine's layer: what Flux's image automation does, run from a laptop or CI. It will read tags (from a
// file, then from registries), evaluate each ImagePolicy with TagwardenPolicy, rewrite the marked fields of the
// Model's files as byte-span edits (TagwardenYAML's `Edit`), and commit and push with TagwardenGit. It sits beside
// TagwardenLint, not above it: the two engines share the Model and nothing else.
