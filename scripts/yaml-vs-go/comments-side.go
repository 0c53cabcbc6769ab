// For each file path of standard input, prints whether go-yaml v3 (Debian's golang-gopkg-yaml.v3-dev, which kustomize's
// kyaml vendors) decodes every document of the file: ok, or err and its message.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	yaml3 "gopkg.in/yaml.v3"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for in.Scan() {
		data, err := os.ReadFile(in.Text())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		dec := yaml3.NewDecoder(bytes.NewReader(data))
		answer := "ok"
		for {
			var node yaml3.Node
			err := dec.Decode(&node)
			if err == io.EOF {
				break
			}
			if err != nil {
				answer = "err " + err.Error()
				break
			}
		}
		fmt.Fprintln(w, answer)
	}
}
