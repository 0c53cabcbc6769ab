// For each JSON-encoded image reference of standard input, prints whether docker/distribution's reference package
// (Debian's golang-github-docker-distribution-dev) accepts it as ParseNormalizedNamed does: ok, or the error.
package main

import (
	"bufio"
	_ "crypto/sha256"
	_ "crypto/sha512"
	"encoding/json"
	"fmt"
	"os"

	"github.com/docker/distribution/reference"
)

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
		if _, err := reference.ParseNormalizedNamed(s); err != nil {
			fmt.Fprintln(w, "ERR "+err.Error())
		} else {
			fmt.Fprintln(w, "OK")
		}
	}
}
