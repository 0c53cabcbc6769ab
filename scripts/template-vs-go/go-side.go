// Parses each JSON-encoded template of standard input with Go's text/template and the function names given
// as arguments (parsing only needs the names), printing OK or ERR and Go's message.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"text/template"
)

func main() {
	funcs := template.FuncMap{}
	for _, name := range os.Args[1:] {
		funcs[name] = func(args ...interface{}) string { return "" }
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	for in.Scan() {
		var text string
		if err := json.Unmarshal(in.Bytes(), &text); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if _, err := template.New("commit message").Funcs(funcs).Parse(text); err != nil {
			fmt.Println("ERR " + err.Error())
		} else {
			fmt.Println("OK")
		}
	}
}
