// Package source mirrors image-automation-controller's TemplateData and templateMsg (internal/source/source.go).
package source

import (
	"fmt"
	"strings"
	"text/template"

	"msgvsgo/types"
	"msgvsgo/update"
)

const defaultMessageTemplate = `Update from image update automation`

type TemplateData struct {
	AutomationObject types.NamespacedName
	Changed          update.Result
	Values           map[string]string
}

func TemplateMsg(messageTemplate string, data *TemplateData, funcs template.FuncMap, newTemplate func(string) *template.Template) (string, error) {
	if messageTemplate == "" {
		messageTemplate = defaultMessageTemplate
	}
	t, err := newTemplate("commit message").Funcs(funcs).Parse(messageTemplate)
	if err != nil {
		return "", fmt.Errorf("unable to create commit message template from spec: %w", err)
	}
	b := &strings.Builder{}
	if err := t.Execute(b, *data); err != nil {
		if strings.Contains(err.Error(), "can't evaluate field Updated in type source.TemplateData") {
			return "", fmt.Errorf("template uses removed '.Updated' field. Please use '.Changed' instead. See: https://fluxcd.io/flux/components/image/imageupdateautomations/#message-template")
		}
		if strings.Contains(err.Error(), "can't evaluate field ImageResult in type update.Result") {
			return "", fmt.Errorf("template uses removed '.Changed.ImageResult' field. Please use '.Changed.FileChanges' or '.Changed.Objects' instead. See: https://fluxcd.io/flux/components/image/imageupdateautomations/#message-template")
		}
		return "", fmt.Errorf("failed to run template from spec: %w", err)
	}
	return b.String(), nil
}
