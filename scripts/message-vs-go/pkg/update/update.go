// Package update mirrors image-automation-controller's internal/update Result (v1.2: Objects appends; before, it assigns). Changes()
// lists the changes by file, then by object in range order, then in file order, deduplicated, where Flux's order
// follows Go's map iteration: tagwarden documents the order it uses, and the comparison holds Go to the same one.
package update

import (
	"sort"

	"msgvsgo/yaml"
)

type ObjectIdentifier struct {
	yaml.ResourceIdentifier
}

type Result struct {
	FileChanges map[string]ObjectChanges
}

type ObjectChanges map[ObjectIdentifier][]Change

type Change struct {
	OldValue string
	NewValue string
	Setter   string
}

func (r *Result) AddChange(file string, id ObjectIdentifier, changes ...Change) {
	if r.FileChanges == nil {
		r.FileChanges = map[string]ObjectChanges{}
	}
	if _, ok := r.FileChanges[file]; !ok {
		r.FileChanges[file] = ObjectChanges{}
	}
	r.FileChanges[file][id] = append(r.FileChanges[file][id], changes...)
}

func less(a, b ObjectIdentifier) bool {
	x := []string{a.APIVersion, a.Kind, a.Name, a.Namespace}
	y := []string{b.APIVersion, b.Kind, b.Name, b.Namespace}
	for i := range x {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return false
}

func (r Result) Changes() []Change {
	seen := map[Change]struct{}{}
	var result []Change
	files := make([]string, 0, len(r.FileChanges))
	for f := range r.FileChanges {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		objects := make([]ObjectIdentifier, 0, len(r.FileChanges[f]))
		for o := range r.FileChanges[f] {
			objects = append(objects, o)
		}
		sort.Slice(objects, func(i, j int) bool { return less(objects[i], objects[j]) })
		for _, o := range objects {
			for _, c := range r.FileChanges[f][o] {
				if _, ok := seen[c]; !ok {
					seen[c] = struct{}{}
					result = append(result, c)
				}
			}
		}
	}
	return result
}

// MergeObjects: Objects() as from Flux 2.9 (IAC 1.2), an object's changes appended over its files; false: as before,
// where Flux's assignment kept the list of the file its map iterated last (the last in path order, as tagwarden
// documents it).
var MergeObjects = true

func (r Result) Objects() ObjectChanges {
	result := make(ObjectChanges)
	files := make([]string, 0, len(r.FileChanges))
	for f := range r.FileChanges {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		for obj, change := range r.FileChanges[f] {
			if MergeObjects {
				result[obj] = append(result[obj], change...)
			} else {
				result[obj] = change
			}
		}
	}
	return result
}
