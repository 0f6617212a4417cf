package catalog

// The generated HTTP layer, the engine's name constants for its rules and
// the typed Go client's register files are rendered from the YAML files
// beside this one.
//go:generate go run ../cmd/fieldgen -catalog . -out ../generated -names ../engine/names -client ../client
