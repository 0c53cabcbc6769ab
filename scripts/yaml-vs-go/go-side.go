// For each JSON-encoded plain scalar of standard input, prints the type go-yaml v2 and v3 (Debian's
// golang-gopkg-yaml.v2-dev and -v3-dev) give it as a mapping value: null, bool, int, float, string, or err.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	yaml2 "gopkg.in/yaml.v2"
	yaml3 "gopkg.in/yaml.v3"
)

func kind(v interface{}) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case int, int64, uint64:
		return "int"
	case float64:
		return "float"
	case string:
		return "string"
	}
	return fmt.Sprintf("%T", v)
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for in.Scan() {
		var s string
		if err := json.Unmarshal(in.Bytes(), &s); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		doc := []byte("v: " + s + "\n")
		var a, b map[string]interface{}
		k2, k3 := "err", "err"
		if yaml2.Unmarshal(doc, &a) == nil {
			k2 = kind(a["v"])
		}
		if yaml3.Unmarshal(doc, &b) == nil {
			k3 = kind(b["v"])
		}
		fmt.Fprintln(w, k2, k3)
	}
}
