// For each file named on standard input (one YAML document each), prints "ok N" (N: how many keys the JSON object
// has, -1 when it is not an object) or "refused" and the error of sigs.k8s.io/yaml's YAMLToJSON: how kubectl, Helm
// and Flux's controllers read a manifest (go-yaml v2, then JSON). Debian's golang-k8s-sigs-yaml-dev and
// golang-gopkg-yaml.v2-dev.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	yaml "documentsvsgo/sigsyaml"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for in.Scan() {
		b, err := os.ReadFile(in.Text())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		j, err := yaml.YAMLToJSON(b)
		if err != nil {
			fmt.Fprintln(w, "refused", strings.ReplaceAll(err.Error(), "\n", " "))
			continue
		}
		var object map[string]interface{}
		if json.Unmarshal(j, &object) == nil && object != nil {
			fmt.Fprintln(w, "ok", len(object))
		} else {
			fmt.Fprintln(w, "ok", -1)
		}
	}
}
