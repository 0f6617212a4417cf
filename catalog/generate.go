package catalog

// The generated HTTP layer is rendered from the YAML files beside this one.
//go:generate go run ../cmd/fieldgen -catalog . -out ../generated
