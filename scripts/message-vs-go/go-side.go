// Renders Flux commit messages as image-automation-controller does (text/template, Sprig's hermetic functions,
// Flux's TemplateData), for scripts/message-vs-go/run. Each line of standard input is a JSON case: the template,
// the automation, its update.path, the changes and messageTemplateValues; each line of output is {"ok": message}
// or {"err": error}. The packages are named as Flux's (source, update, types, yaml) so that Go's error messages
// name the same types.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"text/template"

	"github.com/Masterminds/sprig"

	"msgvsgo/source"
	"msgvsgo/types"
	"msgvsgo/update"
	"msgvsgo/yaml"
)

type change struct {
	File, APIVersion, Kind, Namespace, Name, Setter, Old, New string
}

type input struct {
	Template  string
	Namespace string
	Name      string
	Root      string
	Changes   []change
	Values    map[string]string
	// Objects() as Flux 2.9 and later (true) or as before
	Merge bool
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		var c input
		if err := json.Unmarshal(in.Bytes(), &c); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		result := update.Result{}
		update.MergeObjects = c.Merge
		for _, ch := range c.Changes {
			// the file relative to the update path as written (./apps/3/, apps/./3), as Flux's reader names it
			file, err := filepath.Rel(filepath.Clean(c.Root), ch.File)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			id := update.ObjectIdentifier{ResourceIdentifier: yaml.ResourceIdentifier{
				TypeMeta: yaml.TypeMeta{APIVersion: ch.APIVersion, Kind: ch.Kind},
				NameMeta: yaml.NameMeta{Name: ch.Name, Namespace: ch.Namespace}}}
			result.AddChange(file, id, update.Change{OldValue: ch.Old, NewValue: ch.New, Setter: ch.Setter})
		}
		data := source.TemplateData{AutomationObject: types.NamespacedName{Namespace: c.Namespace, Name: c.Name},
			Changed: result, Values: c.Values}
		msg, err := source.TemplateMsg(c.Template, &data, sprig.HermeticTxtFuncMap(), template.New)
		var line []byte
		if err != nil {
			line, _ = json.Marshal(map[string]string{"err": err.Error()})
		} else {
			line, _ = json.Marshal(map[string]string{"ok": msg})
		}
		out.Write(line)
		out.WriteString("\n")
	}
}
