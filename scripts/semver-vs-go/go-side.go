// For each JSON line {"range": R, "versions": [...]} of standard input, prints whether Masterminds semver (Debian's
// golang-github-masterminds-semver-dev) accepts the range and, if it does, whether each version satisfies it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/Masterminds/semver/v3"
)

type Case struct {
	Range    string   `json:"range"`
	Versions []string `json:"versions"`
}

type Out struct {
	Error    bool   `json:"error"`
	Accepted []bool `json:"accepted"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	enc := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var c Case
		if err := json.Unmarshal(in.Bytes(), &c); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		out := Out{Accepted: []bool{}}
		constraint, err := semver.NewConstraint(c.Range)
		if err != nil {
			out.Error = true
		} else {
			for _, s := range c.Versions {
				v, err := semver.NewVersion(s)
				out.Accepted = append(out.Accepted, err == nil && constraint.Check(v))
			}
		}
		enc.Encode(out)
	}
}
