// Package types mirrors k8s.io/apimachinery's NamespacedName as Flux's template data holds it.
package types

type NamespacedName struct {
	Namespace string
	Name      string
}

func (n NamespacedName) String() string { return n.Namespace + "/" + n.Name }
