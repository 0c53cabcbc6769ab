// The Go side of markers-vs-go: for every YAML file in a directory, the `$imagepolicy` markers that go-yaml v3 (the
// parser under kyaml, which Flux's image automation uses) gives to a scalar value as its line comment, the comment
// Flux reads first. One line per marker: "<file> <namespace>:<name>", sorted. Keys are skipped (Flux visits values).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"gopkg.in/yaml.v3"
)

var marker = regexp.MustCompile(`ns:p[0-9]+`)

func walk(n *yaml.Node, file string, found map[string]bool) {
	if n.Kind == yaml.ScalarNode {
		for _, m := range marker.FindAllString(n.LineComment, -1) {
			found[file+" "+m] = true
		}
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			continue
		}
		walk(c, file, found)
	}
}

func main() {
	files, _ := filepath.Glob(filepath.Join(os.Args[1], "*.yaml"))
	found := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			panic(err)
		}
		var n yaml.Node
		if err := yaml.Unmarshal(b, &n); err != nil {
			fmt.Println("unparsable", filepath.Base(f), err)
			continue
		}
		walk(&n, filepath.Base(f), found)
	}
	lines := make([]string, 0, len(found))
	for k := range found {
		lines = append(lines, k)
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
}
