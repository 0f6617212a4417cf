package catalog

// The generated HTTP layer and the client's register files are rendered
// from the YAML files beside this one.
//go:generate go run ../cmd/fieldgen -catalog . -out ../generated -client ../client
