package catalog

// The generated HTTP layer, and the engine's name constants for its rules,
// are rendered from the YAML files beside this one.
//go:generate go run ../cmd/fieldgen -catalog . -out ../generated -names ../engine/names
