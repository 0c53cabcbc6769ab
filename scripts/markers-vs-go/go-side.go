// The Go side of markers-vs-go: for every YAML file in a directory, the `$imagepolicy` markers Flux reads on a scalar
// value, placed by go-yaml v3 (the parser under kyaml, which Flux's image automation uses): its line comment, or when
// it has none its head comment, all leading '#' stripped, must be the marker's JSON object alone (a head comment of
// several lines is not). One line per marker: "<file> <namespace>:<name>", sorted. Keys are skipped (Flux visits
// values only).
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

var marker = regexp.MustCompile(`^\{"\$imagepolicy": "(ns:p[0-9]+)"\}$`)

func walk(n *yaml.Node, file string, found map[string]bool) {
	if n.Kind == yaml.ScalarNode {
		comment := n.LineComment
		if comment == "" {
			comment = n.HeadComment
		}
		if m := marker.FindStringSubmatch(strings.TrimSpace(strings.TrimLeft(comment, "#"))); m != nil {
			found[file+" "+m[1]] = true
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
