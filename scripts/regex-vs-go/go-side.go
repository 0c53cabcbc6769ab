package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
)

type Case struct {
	Pattern  string   `json:"pattern"`
	Template string   `json:"template"`
	Subjects []string `json:"subjects"`
}

type Out struct {
	Pattern string    `json:"pattern"`
	Error   string    `json:"error,omitempty"`
	Keys    []*string `json:"keys"`
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
		o := Out{Pattern: c.Pattern}
		re, err := regexp.Compile(c.Pattern)
		if err != nil {
			o.Error = err.Error()
		} else {
			for _, s := range c.Subjects {
				m := re.FindStringSubmatchIndex(s)
				if m == nil {
					o.Keys = append(o.Keys, nil)
					continue
				}
				k := string(re.ExpandString(nil, c.Template, s, m))
				o.Keys = append(o.Keys, &k)
			}
		}
		enc.Encode(o)
	}
}
