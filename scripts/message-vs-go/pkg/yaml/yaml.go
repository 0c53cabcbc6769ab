// Package yaml mirrors kyaml's ResourceIdentifier, the key of Flux's ObjectChanges.
package yaml

type TypeMeta struct {
	APIVersion string
	Kind       string
}

type NameMeta struct {
	Name      string
	Namespace string
}

type ResourceIdentifier struct {
	TypeMeta
	NameMeta
}
